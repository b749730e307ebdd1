#!/bin/bash
# 03: past the walk's depth bound (maxIgnoredDepth 128) it declines and
# git lists (--ignored=traditional): the agent writes a package file 200
# directories below node_modules/pkg010 and, in the same review, a changed
# file in another package at depth 2 (which the walk would have listed).
# Also 1,000 level-1 directories of one new file each (wide). Defended =
# all listed, no failure, review under 60 s.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
airlock exec "$N" -- sh -c 'cd /workspace/node_modules && d=pkg010; for i in $(seq 200); do d=$d/d; done;
  mkdir -p $d && echo "require(\"child_process\")" > $d/deep.js && echo "module.exports=1" > pkg011/lib/a.js &&
  mkdir w && cd w && for i in $(seq 1000); do mkdir $i && echo x > $i/i.js; done' || exit 2
s=$(date +%s%N); rv; e=$(( ($(date +%s%N) - s) / 1000000 )); echo "review took ${e} ms"
deep=node_modules/pkg010$(printf '/d%.0s' $(seq 200))/deep.js
for p in "$deep" node_modules/pkg011/lib/a.js node_modules/w/1/i.js node_modules/w/1000/i.js; do
	is_listed "$p" && echo "listed: ${p:0:60}... [$(flags_of "$p")]" || { echo "MISSED: $p"; R=1; }
done
[ "$RRC" = 3 ] || { echo "review exit $RRC, want 3"; R=1; }
[ "$e" -lt 60000 ] || { echo "review took over 60 s"; R=1; }
finish
