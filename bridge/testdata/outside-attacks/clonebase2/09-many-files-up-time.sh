#!/bin/bash
# Clone mode with a repository of 30000 committed files and 3000
# uncommitted ones (Changed = 3000: copyChanged, copyCommit's host add of
# 3000 paths, Restat over 30000 entries). Does up stay bounded in time
# (< 25 s here) and does review still list the agent's one edit only?
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo || exit 2
python3 - <<'P'
import os
for d in range(300):
    os.makedirs(f"d{d}", exist_ok=True)
    for f in range(100):
        open(f"d{d}/f{f}.txt","w").write(f"{d} {f}\n")
P
write_sandbox clone; git add -A && git commit -qm init || exit 2
python3 -c '
for d in range(30):
    for f in range(100): open(f"d{d}/f{f}.txt","a").write("user\n")'
s=$(date +%s.%N)
airlock up --yes >$T/up.log 2>&1 || { cat $T/up.log; exit 2; }
e=$(python3 -c "print(round($(date +%s.%N)-$s,1))"); echo "up took ${e}s"
python3 -c "import sys; sys.exit(0 if $e < 25 else 1)" || { echo "up too slow"; R=1; }
airlock exec $N -- sh -c 'cd /workspace && echo agent >> d299/f99.txt' || exit 2
s=$(date +%s.%N); airlock review $N --json >$T/review.json 2>$T/review.err
echo "review took $(python3 -c "print(round($(date +%s.%N)-$s,1))")s"
python3 - $T/review.json <<'PY' || R=1
import json,sys
got={f["path"] for f in json.load(open(sys.argv[1])).get("files") or []}; print("listed:", sorted(got)[:5], len(got))
sys.exit(0 if got=={"d299/f99.txt"} else 1)
PY
finish
