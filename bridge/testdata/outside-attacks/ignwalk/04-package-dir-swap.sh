#!/bin/bash
# 04: old files in new places. ignoredToStage keeps an ignored file only
# if its own ctime is after the start; renaming a DIRECTORY changes the
# directory's ctime, not its files'. The agent swaps two installed
# packages (mv pkg020 -> tmp, pkg021 -> pkg020, tmp -> pkg021) and moves
# pkg022 to out/ (the build output package.json's "main" points into):
# require("pkg020") now runs pkg021's code, out/ has files it never had.
# Nothing the agent wrote, but the code that runs changed. Got through =
# none of the moved files is listed (and no finding names the swap).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
airlock exec "$N" -- sh -c 'cd /workspace && mv node_modules/pkg020 node_modules/tmp && mv node_modules/pkg021 node_modules/pkg020 &&
  mv node_modules/tmp node_modules/pkg021 && mv node_modules/pkg022 out' || exit 2
grep -q 21 node_modules/pkg020/lib/a.js && [ -f out/index.js ] || { echo "swap not live: setup"; exit 2; }
rv; echo "listed: $(listed)"
n=0; for p in node_modules/pkg020/lib/a.js node_modules/pkg020/index.js node_modules/pkg021/lib/a.js out/index.js out/lib/a.js; do
	is_listed "$p" && { echo "listed: $p [$(flags_of "$p")]"; n=$((n+1)); } || echo "not listed: $p"
done
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("notes:", d.get("notes"))' "$T/review.json"
[ "$n" = 0 ] && { echo "packages swapped and moved into out/, review lists none of it"; R=1; }
finish
