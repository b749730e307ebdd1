#!/bin/bash
# 03: 01 with no file of the agent's: the user's repository has a
# submodule (vendor/lib, checked out: a gitlink in the index, its .git a
# gitfile). surveyGo declines for any gitlink, so every
# review of this folder uses the old survey (git status refreshing the
# index, whole seconds) and git add: the armed agent's same-second rewrite
# of Makefile is never listed. Got through = a later review does not list
# Makefile while the live Makefile holds B.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct
git init -q "$T/sub" && git -C "$T/sub" commit -q --allow-empty -m s &&
	git -c protocol.file.allow=always submodule -q add "$T/sub" vendor/lib >/dev/null 2>&1 || exit 2
up_sandbox
rv >/dev/null
race Makefile
sleep 1.2; rv; rv; echo "listed: $(listed)"
echo "live Makefile: $(tail -1 "$T/repo/Makefile")  review's snapshot: $(snapblob Makefile | tail -1)"
grep -q curl "$T/repo/Makefile" || { echo "live Makefile is not B: setup"; exit 2; }
case " $(listed) " in
*" Makefile "*) echo "review lists Makefile";;
*) echo "review MISSED Makefile (live: B)"; R=1;;
esac
finish
