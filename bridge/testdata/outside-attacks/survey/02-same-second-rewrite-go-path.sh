#!/bin/bash
# 02: 01 without anything that makes the Go stager decline: the armed
# agent writes B in the same second as A's ctime right after review read
# A. The Go survey compares ctime to the nanosecond, and ext4 here has
# multigrain timestamps (a change after a stat gets a fine-grained ctime:
# 2,000 of 2,000 writes with a stat between them had distinct ctimes), so
# the next review sees the entry differ and the Go stager hashes B.
# Defended = a later review lists Makefile.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
rv >/dev/null
race Makefile
sleep 1.2; rv; echo "listed: $(listed)"
echo "live Makefile: $(tail -1 "$T/repo/Makefile")  review's snapshot: $(snapblob Makefile | tail -1)"
case " $(listed) " in
*" Makefile "*) echo "review lists Makefile";;
*) echo "review MISSED Makefile (live: B)"; R=1;;
esac
finish
