#!/bin/bash
# 01: a tracked file changed and never listed. The Go survey compares the
# index with the folder to the nanosecond, but whenever the Go stager
# declines (here: the agent's "README.md~", a name with "~", its mtime set
# to 2030 so every review finds it racily clean and lists it again), git
# add stages the paths the survey listed, and host git 2.39 compares stat
# times in whole seconds: it keeps the old entry ("nothing changed,
# really") for a file whose content changed in the same second as the
# ctime review recorded. The agent keeps Makefile at its reviewed content
# A (mtime 2001), sees review read it (atime, statx FORCE_SYNC) and writes
# B (same size, mtime 2001) in that second. Got through = two later
# reviews do not list Makefile, and review's snapshot holds A, while the
# live Makefile holds B.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
rv >/dev/null
airlock exec $N -- sh -c 'cd /workspace && cp README.md "README.md~" && touch -d 2030-01-01 "README.md~"' || exit 2
race Makefile
sleep 1.2; rv; rv; echo "listed: $(listed)"
echo "live Makefile: $(tail -1 "$T/repo/Makefile")  review's snapshot: $(snapblob Makefile | tail -1)"
grep -q curl "$T/repo/Makefile" || { echo "live Makefile is not B: setup"; exit 2; }
case " $(listed) " in
*" Makefile "*) echo "review lists Makefile";;
*) echo "review MISSED Makefile (live: B)"; R=1;;
esac
finish
