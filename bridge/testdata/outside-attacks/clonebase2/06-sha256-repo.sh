#!/bin/bash
# Clone mode with a sha256 repository (git init --object-format=sha256) and
# uncommitted work: Restat must leave its index to git, copyCommit must make
# a sha256 base. Up must work and review must list the agent's edit and the
# user's uncommitted file as part of the base (not as the agent's).
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q --object-format=sha256 $T/repo && cd $T/repo || exit 2
echo one > a.txt; echo two > b.txt; write_sandbox clone; git add -A && git commit -qm init || exit 2
echo user-uncommitted > u.txt
airlock up --yes >$T/up.log 2>&1 || { echo "up fails on a sha256 repository:"; tail -3 $T/up.log; R=1; finish; }
airlock exec $N -- sh -c 'cd /workspace && git status --porcelain && echo agent > a.txt' || exit 2
airlock review $N --json >$T/review.json 2>$T/review.err || { echo "review fails:"; cat $T/review.err; R=1; finish; }
python3 - $T/review.json <<'PY' || R=1
import json,sys
got={f["path"] for f in json.load(open(sys.argv[1])).get("files") or []}; print("listed:", sorted(got))
sys.exit(0 if got=={"a.txt"} else 1)
PY
finish
