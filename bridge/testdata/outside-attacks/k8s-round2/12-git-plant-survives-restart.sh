#!/bin/bash
# Review compares the sandbox's .git code-bearing files (hooks, config) with
# "their state at start". On the kubernetes backend the workspace outlives
# the pod: the agent plants a hook and core.fsmonitor, the sandbox is
# stopped and started (a new pod on the same claim), then reviewed. A
# baseline re-taken at every start would now hold the plant and say
# nothing. Got through when review before the restart flags GIT-HOOK /
# GIT-CONFIG-CMD and review after it does not.
. "$(dirname "$0")/lib.sh"
need_cluster2
write_sandbox "$N"; up_sandbox "$N"
inside "$N" 'cd /workspace && mkdir -p .git/hooks && printf "#!/bin/sh\nid\n" > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout && git config core.fsmonitor "touch /tmp/pwned-fsmonitor"' || setup_error "plant"
timeout 200 airlock review "$N" > "$T/r1" 2>&1
timeout 120 airlock stop "$N" >/dev/null 2>&1 && timeout 200 airlock start "$N" >/dev/null 2>&1 || setup_error "restart"
timeout 200 airlock review "$N" > "$T/r2" 2>&1
for r in r1 r2; do echo "$r: $(grep -oE 'GIT-HOOK|GIT-CONFIG-CMD' "$T/$r" | sort -u | tr '\n' ' ') | $(tail -1 "$T/$r")"; done
grep -q GIT-HOOK "$T/r1" || setup_error "not flagged even before the restart"
bad=0
grep -q GIT-HOOK "$T/r2" || bad=1
grep -q GIT-CONFIG-CMD "$T/r2" || bad=1
result $bad
