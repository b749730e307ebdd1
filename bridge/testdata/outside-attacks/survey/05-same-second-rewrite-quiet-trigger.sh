#!/bin/bash
# 05: 01 with nothing for review to list at all. The project has a
# .gitattributes (common; so do .gitmodules, .git-blame-ignore-revs,
# .gitlab/...), a name plainPath leaves to git. The agent only moves its
# mtime to 2030 (content and mode unchanged: review lists nothing for it),
# so every review finds it racily clean, hands it to the stager, and the
# stager declines: git add stages, comparing in whole seconds, and the
# armed agent's same-second rewrite of Makefile stays out of review.
# Got through = a later review lists nothing while Makefile holds B.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; printf '*.go diff=golang\n' > .gitattributes; write_sandbox direct; up_sandbox
rv >/dev/null
airlock exec $N -- touch -m -d 2030-01-01 /workspace/.gitattributes || exit 2
race Makefile
sleep 1.2; rv; rv; echo "listed: '$(listed)'"
echo "live Makefile: $(tail -1 "$T/repo/Makefile")  review's snapshot: $(snapblob Makefile | tail -1)"
grep -q curl "$T/repo/Makefile" || { echo "live Makefile is not B: setup"; exit 2; }
case " $(listed) " in
*" Makefile "*) echo "review lists Makefile";;
*) echo "review MISSED Makefile (live: B)"; R=1;;
esac
finish
