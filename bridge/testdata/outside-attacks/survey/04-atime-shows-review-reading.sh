#!/bin/bash
# 04: what 01-03 time themselves by. Review (git, or the Go stager) reads
# the changed files of the live folder on the host without O_NOATIME, and
# the workspace gate passes the host's atime through: a statx with
# AT_STATX_FORCE_SYNC (past the FUSE attribute cache) in the sandbox sees
# the moment review read a file (relatime: any read after a change moves
# atime), to the nanosecond. Got through = the agent sees review's read.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
rv >/dev/null
airlock exec $N -- sh -c 'cd /workspace && echo x >> main.go && touch -a -d 2001-09-09 main.go' || exit 2
Q='import ctypes,struct,sys
b=ctypes.create_string_buffer(256)
ctypes.CDLL(None).statx(-100,b"/workspace/main.go",0x2000,0x7ff,b); print(struct.unpack_from("<q",b,64)[0])'
a0=$(airlock exec $N -- python3 -c "$Q") || exit 2
rv; a1=$(airlock exec $N -- python3 -c "$Q") || exit 2
echo "atime inside: before review $a0, after $a1 (host read at $(date -d @"$a1" +%T 2>/dev/null))"
[ "$a0" != "$a1" ] && { echo "the agent sees review read main.go"; R=1; }
finish
