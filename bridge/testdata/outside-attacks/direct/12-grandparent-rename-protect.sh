#!/bin/bash
# 12: move a protected file's parent or grandparent away, write through the
# new name, move it back.
SB=atk12
. "$(dirname "$0")/common2.sh"; . "$(dirname "$0")/lib.sh"
mkrepo; up
ax sh -c 'cd /workspace; touch probe || exit 9
  mv top top2 && echo PWNED > top2/mid/deep/x && mv top2 top
  mv top/mid top/m2 && echo PWNED > top/m2/deep/x && mv top/m2 top/mid
  mv prot prot2 && echo PWNED > prot2/f && mv prot2 prot; true' 2>&1 | sed 's/^/  inside: /'
[ -e "$WS/probe" ] || setup_error "the agent could not write the folder at all"
grep -q PWNED "$WS/top/mid/deep/x" "$WS/prot/f" 2>/dev/null && succeeded
[ -f "$WS/top/mid/deep/x" ] && [ -f "$WS/prot/f" ] || { echo "a protected file moved away"; succeeded; }
defended
