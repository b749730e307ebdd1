#!/bin/bash
# Clone mode. The repository's HEAD is a symbolic ref to a branch that does
# not exist (refs/heads/gone) while another branch holds committed files,
# and the working tree has those files plus an edit. git clone checks out
# nothing; copyChanged copies the working tree; copyCommit has no HEAD.
# Up must work and review must list only what the agent changes (not the
# user's files as the agent's, nor miss the agent's edit).
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo || exit 2
echo one > a.txt; echo two > run.sh; write_sandbox clone; git add -A && git commit -qm init || exit 2
git symbolic-ref HEAD refs/heads/gone; echo edited > a.txt
airlock up --yes >$T/up.log 2>&1 || { echo "up fails:"; tail -3 $T/up.log; R=1; finish; }
airlock exec $N -- sh -c 'cd /workspace && ls && echo agent >> run.sh' || exit 2
airlock review $N --json >$T/review.json 2>$T/review.err || { echo "review fails:"; cat $T/review.err; R=1; finish; }
python3 - $T/review.json <<'PY' || R=1
import json,sys
got={f["path"] for f in json.load(open(sys.argv[1])).get("files") or []}; print("listed:", sorted(got))
sys.exit(0 if got=={"run.sh"} else 1)
PY
finish
