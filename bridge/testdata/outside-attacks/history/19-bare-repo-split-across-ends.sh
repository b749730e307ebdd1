#!/bin/bash
# 19 (phase 2): GIT-BARE-REPO fires on a changed `config` only when the
# same Scan also holds `HEAD` of that directory (scan.go:
# markGitConfigTargets looks in s.files). apply's history scan skips every
# (path, blob) the final diff shows (history.go versionsBeyond) and scans
# the rest with Scan(files), no tree. So: C1 commits an embedded bare
# repository sub/{HEAD,config,objects/info/packs,refs/heads/.keep} whose
# config sets core.worktree=.. and core.fsmonitor (index entries only:
# the workspace gate would refuse HEAD beside objects/ in the folder); C2
# drops all but sub/HEAD, which the folder also holds (a lone file named
# HEAD is no repository). Review sees sub/HEAD without config; the
# history scan sees sub/config without HEAD. Got through = a branch whose
# history holds the bare repo, no --accept; shown by checking C1 out on
# the host and running `git status` in sub/ (what a shell prompt or an
# editor's git integration does on entering it).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
ag "mkdir -p sub && echo 'ref: refs/heads/main' > sub/HEAD &&
  C=\$(printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch $M; false\"\n' | git hash-object -w --stdin) && E=\$(git hash-object -w --stdin </dev/null) &&
  git add sub/HEAD && git update-index --add --cacheinfo 100644,\$C,sub/config --cacheinfo 100644,\$E,sub/objects/info/packs --cacheinfo 100644,\$E,sub/refs/heads/.keep &&
  git commit -qm 'vendor: sub' && git rm -q --cached sub/config sub/objects/info/packs sub/refs/heads/.keep && git commit -qm 'sub: keep HEAD only' && git log --format=%s --name-status | head -12"
sleep 0.5; try bare; echo "  sub/HEAD: $(flags_of sub/HEAD)"
if has_branch && git rev-list "$BR" | while read c; do git cat-file -e "$c:sub/config" 2>/dev/null && echo y; done | grep -q y; then
	echo "  the branch's history holds the embedded bare repo, no --accept"; R=1
	C1=$(git rev-list "$BR" | while read c; do git cat-file -e "$c:sub/config" 2>/dev/null && echo "$c" && break; done)
	git worktree add -q --detach "$T/wt" "$C1" 2>/dev/null && (cd "$T/wt/sub" && git status >/dev/null 2>&1)
	[ -e "$M" ] && echo "  checking C1 out (a clean worktree) and running git status in sub/ ran the agent's command on the host"
	git worktree remove --force "$T/wt" 2>/dev/null
fi
finish
