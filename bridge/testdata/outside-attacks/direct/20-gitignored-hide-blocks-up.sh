#!/bin/bash
# 20: the repository's .gitignore lists the directory a hide glob names;
# review's baseline used to fail on git add's "ignored" advice, so such a
# repository could keep direct mode from starting at all.
SB=atk20
PRE_SETUP='echo "config/" > .gitignore; echo S=1 > config/secret.txt'
. "$(dirname "$0")/lib.sh"
mkrepo
timeout 180 airlock up -f "$WS/sandbox.hcl" --yes >"$TOP/up.log" 2>&1 || { cat "$TOP/up.log"; succeeded; }
ax sh -c 'echo work > /workspace/new.txt; cat /workspace/config/secret.txt 2>/dev/null' | grep -q S=1 && { echo "hidden file readable"; succeeded; }
timeout 60 airlock review "$SB" | grep -q "new.txt" || { echo "review misses the agent's file"; succeeded; }
defended
