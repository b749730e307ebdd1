#!/bin/bash
# 11 (phase 1): history/19 and history2/08(b)'s bare repository, its HEAD
# added LAST. Through the index the agent commits sub/config
# (core.worktree=.., core.fsmonitor = a command), sub/objects/info/packs,
# sub/refs/heads/.keep: no HEAD, so not a git directory (C1); C2 adds only
# sub/HEAD, which makes sub/ one; C3 removes it all. HEAD is a SYMLINK to
# "refs/heads/main" (git's validate_headref takes a symlinked HEAD whose
# link text starts with "refs/", dangling or not); CONTROL=1: a regular
# file "ref: refs/heads/main". V=olast: C1 HEAD + config + refs, C2 adds
# only objects/info/packs. V=one (all in C1) and V=split (config added
# last) are the known cases (refused).
# Got through = branch made without --accept (or with the accepts asked
# for, no diff having shown the fsmonitor line). End to end: check the
# commit that completes the repository out in a worktree (`git worktree
# add`, as for a bisect) and run `git status` in sub/: the command runs.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; V=${V:-rsplit}; CONTROL=${CONTROL:-0}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'P'
set -e
h() { printf "$1" | git hash-object -w --stdin; }
add() { git update-index --add --cacheinfo "$1,$(h "$2"),sub/$3"; }
CFG='[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch MARK #"\n'
head() { if [ "$CONTROL" = 1 ]; then add 100644 'ref: refs/heads/main\n' HEAD; else add 120000 'refs/heads/main' HEAD; fi; }
[ "$V" = olast ] || add 100644 '' objects/info/packs; add 100644 '' refs/heads/.keep
case "$V" in
olast) head; add 100644 "$CFG" config; git commit -qm "C1 sub"; add 100644 '' objects/info/packs; git commit -qm "C2 cfg";;
split) head; git commit -qm "C1 sub"; add 100644 "$CFG" config; git commit -qm "C2 cfg";;
rsplit) add 100644 "$CFG" config; git commit -qm "C1 sub"; head; git commit -qm "C2 cfg";;
*) head; add 100644 "$CFG" config; git commit -qm "C1 sub";;
esac
git rm -q -r --cached sub; echo "// x" >> src/extension.ts; git add src; git commit -qm "C3 drop"
git log --format='%H %s' | tr '\n' '|'; echo
P
sed -i "s|MARK|$M|" "$T/plant.sh"
plant "$T/plant.sh" "V=$V CONTROL=$CONTROL" | tee "$T/agent.log"
sleep 0.5
as_told bsym 'fsmonitor'
if has_branch && hist_has 'fsmonitor'; then
	c=$(grep -o '[0-9a-f]\{40\} C[12] \(sub\|cfg\)' "$T/agent.log" | head -1 | cut -d' ' -f1)
	git worktree add -q --detach "$T/wt" "$c" 2>/dev/null && (cd "$T/wt/sub" && git status >/dev/null 2>&1); git worktree remove --force "$T/wt" 2>/dev/null
	[ -e "$M" ] && echo "  END TO END: checking out $c and running git status in sub/ ran the agent's fsmonitor command"
	if [ ! -s "$T/named.txt" ]; then echo "  branch carries the bare repository with no accept"; R=1
	elif [ $SAW = 0 ]; then echo "  branch carries it; no diff the user was pointed to showed the fsmonitor config"; R=1
	else echo "  a diff the user read showed it"; fi; fi
[ "$CONTROL" = 1 ] && echo "  (control run)"
finish
