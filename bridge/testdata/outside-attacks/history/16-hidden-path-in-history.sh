#!/bin/bash
# 16 (phase 1): a path under the built-in hide globs, only in history.
# The agent cannot create .env in the folder (hidden), but git takes any
# path: C1 adds .env (NODE_OPTIONS=--require ./x.js, LD_PRELOAD=...: what
# dotenv loaders, VS Code's Python envFile, `node --env-file` inject) and
# deploy/id_ed25519 through `git update-index --cacheinfo`; C2 removes
# them. README: commits that change a path the hide globs cover need
# --accept HIDDEN-PATH. Got through = a branch whose history holds .env,
# no --accept.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
ag 'B=$(printf "NODE_OPTIONS=--require ./x.js\nLD_PRELOAD=/tmp/x.so\n" | git hash-object -w --stdin) && K=$(echo key | git hash-object -w --stdin) && git update-index --add --cacheinfo 100644,$B,.env --cacheinfo 100644,$K,deploy/id_ed25519 && git commit -qm env && git rm -q --cached .env deploy/id_ed25519 && git commit -qm tidy && git log --format=%s --name-status | head -8'
sleep 0.5; try hid
if has_branch && git log --format= --name-only "$BR" | grep -qx .env; then echo "  the branch's history holds .env, no --accept"; R=1; fi
finish
