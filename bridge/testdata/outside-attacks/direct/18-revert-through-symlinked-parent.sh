#!/bin/bash
# 18: the agent replaces a tracked directory with a symlink to a host path
# outside the folder; the user runs `airlock revert` on files below it.
SB=atk18
. "$(dirname "$0")/common2.sh"; PROTECT='"prot/**", "Makefile"'; . "$(dirname "$0")/lib.sh"
mkrepo; up
O=$TOP/outside18; mkdir -p "$O"
ax sh -c "cd /workspace; rm -rf top && ln -s $O top; ls -ld top" 2>&1 | sed 's/^/  inside: /'
[ -L "$WS/top" ] || setup_error "the symlink was not placed (top/ is a plain directory)"
timeout 60 airlock revert "$SB" top/mid/deep/x 2>&1 | tail -2 | sed 's/^/  revert: /'
timeout 60 airlock revert "$SB" top 2>&1 | tail -2 | sed 's/^/  revert: /'
[ -n "$(ls -A "$O")" ] && { ls -laR "$O" | head; succeeded; }
defended
