#!/bin/bash
# 02 (phase 1): history3/23 (working-tree-encoding) after its fix
# (GIT-ATTR-ENCODING high; PARSE-FAIL refused where content is converted),
# with the attribute where a scanner might not look for it.
#   V=macro (default): the root .gitattributes defines a macro,
#     `[attr]legacy working-tree-encoding=IBM037`, and says
#     `package.json legacy`. package.json's blob is the UTF-8 of the
#     EBCDIC-decoded live document (Latin-1 gibberish); checkout writes
#     `{"name":"p",...,"postinstall":"touch MARK"}`.
#   V=nested: .vscode/.gitattributes (not the root one) says
#     `tasks.json working-tree-encoding=IBM037`; the tasks.json blob
#     decodes on checkout to a folder-open task.
#   V=quoted: root .gitattributes, the path quoted and globbed:
#     `"p[a]ckage.json" working-tree-encoding=IBM037`.
#   V=crlf: root .gitattributes with CRLF line ends and a UTF-8 BOM.
# C1: through git add (git converts the live bytes into the stored
# gibberish); the folder keeps the base's bytes. C2: both gone.
# Got through = a branch carrying C1 made with no --accept (or with the
# accepts asked for, no refusal naming GIT-ATTR-ENCODING and no diff the
# user read showing the live command).
# End to end: npm install in a worktree of C1 (package.json variants).
D=$(cd "$(dirname "$0")" && pwd); . "$D/common.sh"
MODE=${1:-direct}; V=${V:-macro}
NPKG=2 mkproj
write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'P'
set -e
cp package.json /tmp/p0
case "$V" in
nested) f=.vscode/tasks.json; mkdir -p .vscode; printf 'tasks.json working-tree-encoding=IBM037\n' > .vscode/.gitattributes; git add .vscode/.gitattributes
  printf '{"version":"2.0.0","tasks":[{"label":"dev","type":"shell","command":"touch MARK","runOptions":{"runOn":"folderOpen"}}]}\n' > $f ;;
*) f=package.json
  case "$V" in macro) printf '[attr]legacy working-tree-encoding=IBM037\npackage.json legacy\n' ;;
  quoted) printf '"p[a]ckage.json" working-tree-encoding=IBM037\n' ;;
  crlf) printf '\357\273\277package.json working-tree-encoding=IBM037\r\n' ;; esac > .gitattributes; git add .gitattributes
  printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc","postinstall":"touch MARK"}}\n' > $f ;;
esac
git add $f; git commit -qm "C1 enc"
git show HEAD:$f | head -c 120; echo
git rm -rq --cached .gitattributes .vscode 2>/dev/null || true; rm -rf .gitattributes .vscode
cp /tmp/p0 package.json; git add -A; git commit -qm "C2 back"
echo "// x" >> src/extension.ts; git commit -qam "C3 src"
git log --format='%h %s' | tr '\n' '|'; echo
P
sed -i "s|MARK|$M|g" "$T/plant.sh"; plant "$T/plant.sh" "V=$V"
sleep 0.5
airlock review "$N" > "$T/review.txt" 2>&1; echo "review rc=$?"; grep -E "HIGH|MEDIUM|agent's commits" "$T/review.txt" | cut -c1-250 | head -12
if [ "$V" = nested ]; then pat=folderOpen; fp=.vscode/tasks.json; else pat=postinstall; fp=package.json; fi
as_told enc "$pat"
if has_branch && wt "C1 enc"; then
	echo "  checkout of C1: $(head -c 300 "$T/wt/$fp" | tr -c '[:print:]\n' '?')"
	if [ "$V" = nested ]; then live=$(jsonc "$T/wt/$fp" | grep -c folderOpen)
	else live=$(node -e 'const s=JSON.parse(require("fs").readFileSync(process.argv[1])).scripts||{}; console.log(s.postinstall?1:0)' "$T/wt/$fp" 2>/dev/null); fi
	if [ "${live:-0}" -ge 1 ]; then
		if grep -q GIT-ATTR-ENCODING "$T"/apply*.log; then echo "  refused naming GIT-ATTR-ENCODING (high): the user was told; the diffs show the stored bytes (history3/23's open residue)"
		elif [ ! -s "$T/named.txt" ]; then echo "  branch carries C1, whose checkout runs the agent's command, with no --accept"; R=1
		elif [ $SAW = 0 ]; then echo "  branch carries C1; no diff the user read showed $pat"; R=1
		else echo "  a diff the user read showed $pat: defended"; fi
		if [ "$R" = 1 ] && [ "$fp" = package.json ]; then npm_in "$T/wt"; [ -e "$M" ] && echo "  END TO END: npm install in a worktree of C1 ran the agent's postinstall"; fi
	fi
	wt_done
fi
finish
