#!/bin/bash
# 02: what the walk must list (regression for direct_ignwalk.go against
# git's --ignored=traditional listing, which review used before). The
# agent, after the baseline, in ignored places: appends to a file 3 levels
# down in node_modules (same size trick: mtime put back), adds a file 40
# levels deep, turns an old file into a directory holding a new file,
# turns a package directory into a symlink to /etc, replaces an old
# symlink's target, writes a new out/extension.js (the extension's main)
# and x.log, and adds an empty directory and a 6-level chain of empty
# directories (git lists neither). Defended = every changed file is listed
# (package code DEPS-CODE high), nothing outside the folder (no /etc file)
# appears, review exits 3 and does not fail.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
airlock exec "$N" -- sh -c 'cd /workspace/node_modules &&
  m=$(stat -c %Y pkg005/lib/a.js) && printf "module.exports = 9;\n" > pkg005/lib/a.js && touch -d @$m pkg005/lib/a.js &&
  d=pkg006; for i in $(seq 40); do d=$d/d; done; mkdir -p $d && echo "require(\"child_process\")" > $d/deep.js &&
  rm pkg007/lib/b.js && mkdir pkg007/lib/b.js && echo x > pkg007/lib/b.js/index.js &&
  rm -rf pkg008 && ln -s /etc pkg008 &&
  rm pkg001/lib/link.js && ln -s /etc/passwd pkg001/lib/link.js &&
  mkdir -p empty e1/e2/e3/e4/e5/e6 && cd .. && mkdir -p out && echo "evil()" > out/extension.js && echo x > x.log' || exit 2
rv; echo "listed: $(listed)"
deep=node_modules/pkg006$(printf '/d%.0s' $(seq 40))/deep.js
for p in node_modules/pkg005/lib/a.js "$deep" node_modules/pkg007/lib/b.js/index.js node_modules/pkg008 \
	node_modules/pkg001/lib/link.js out/extension.js x.log; do
	is_listed "$p" && echo "listed: $p [$(flags_of "$p")]" || { echo "MISSED: $p"; R=1; }
done
listed | tr ' ' '\n' | grep -E '^node_modules/pkg008/|passwd|shadow|hostname' && { echo "a host file outside the folder was listed"; R=1; }
[ "$RRC" = 3 ] || { echo "review exit $RRC, want 3"; R=1; }
finish
