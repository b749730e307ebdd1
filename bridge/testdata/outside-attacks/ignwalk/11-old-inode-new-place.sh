#!/bin/bash
# 11: can an old-ctime FILE (not a directory, see 04) appear in a new
# place? ignoredToStage trusts the walk's fstatat ctime. The agent, in
# node_modules only (files that existed before the start): (a) replaces
# pkg061/index.js by a hard link to pkg060/lib/a.js, (b) renames
# pkg062/lib/b.js over pkg063/lib/a.js, (c) renames pkg064/index.js into a
# new directory node_modules/zz/index.js, (d) `cp -a`s pkg065/lib/b.js to
# pkg066/lib/x.js (new inode, old mtime kept). link(2) and rename(2) set
# the inode's ctime on ext4, so each must be listed. Defended = all four
# new places listed, plus pkg060/lib/a.js (its ctime moved with the link).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
sleep 1.1 # the start is a whole second behind the old files' ctimes
airlock exec "$N" -- sh -c 'cd /workspace/node_modules && rm pkg061/index.js && ln pkg060/lib/a.js pkg061/index.js &&
  mv pkg062/lib/b.js pkg063/lib/a.js && mkdir zz && mv pkg064/index.js zz/index.js && cp -a pkg065/lib/b.js pkg066/lib/x.js' || exit 2
rv; echo "listed: $(listed)"
for p in node_modules/pkg061/index.js node_modules/pkg063/lib/a.js node_modules/zz/index.js node_modules/pkg066/lib/x.js node_modules/pkg060/lib/a.js; do
	is_listed "$p" && echo "listed: $p [$(flags_of "$p")]" || { echo "MISSED: $p"; R=1; }
done
finish
