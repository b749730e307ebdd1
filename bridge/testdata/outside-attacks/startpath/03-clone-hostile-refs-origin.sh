#!/bin/bash
# 03: clone mode's `git remote remove origin` now runs beside review's
# host-side baseline (git add on a temp index, write-tree, the commit in
# Go, refs/airlock/base). A hostile host repository makes the removal
# slow and odd: 30,000 branches in packed-refs (each one a remote ref to
# delete), branches named origin, HEAD and refs/remotes-like names,
# a .gitattributes asking for a filter and eol conversion, tags, a 200 KB
# [alias] config section, plus uncommitted and untracked files (so the
# baseline takes the git-add path). Got through = inside the sandbox the
# host path shows in .git/config or any ref (other than the reflog, 04),
# a remote is left, refs/airlock/base differs from what a fresh review
# expects (a finding other than the agent's one change), or up/review fail.
. "$(dirname "$0")/../lib.sh"
mkdir -p "$T/repo" && cd "$T/repo" && git init -q -b main || exit 2
printf '* text=auto eol=crlf\n*.txt filter=evil diff=evil\n' > .gitattributes
for i in $(seq 1 50); do echo "line $i" > "f$i.txt"; done
python3 -c 'print("[alias]"); [print("  a%d = log -%d" % (i, i)) for i in range(12000)]' >> .git/config
write_sandbox clone; git add -A 2>/dev/null && git commit -qm init || exit 2
C=$(git rev-parse HEAD)
{ cat .git/packed-refs 2>/dev/null; for i in $(seq 1 30000); do echo "$C refs/heads/b$i"; done
  echo "$C refs/heads/origin"; echo "$C refs/heads/HEAD"; echo "$C refs/heads/remotes/origin/main"
  echo "$C refs/tags/v1"; } > .git/packed-refs
echo changed >> f1.txt; echo new > untracked.txt
t0=$(date +%s%N)
ok=0; for i in 1 2 3; do airlock up --yes >"$T/up.log" 2>&1 && { ok=1; break; }; sleep 1; done
[ $ok = 1 ] || { cat "$T/up.log"; exit 2; }
echo "up with 30k branches: $(( ($(date +%s%N)-t0)/1000000 )) ms"
grep -o 'create.workspace[^;]*' "$AIRLOCK_HOME/bridge.log" 2>/dev/null | tail -3
airlock exec $N -- sh -c 'cd /workspace; echo "remotes: [$(git remote -v)]"; cat .git/config; git for-each-ref | wc -l; git for-each-ref refs/remotes | wc -l; git for-each-ref refs/airlock; git status --short | head' >"$T/in.log" 2>&1 || { cat "$T/in.log"; exit 2; }
cat "$T/in.log" | grep -v '^\s*a[0-9]' | head -20
grep -q "$T" "$T/in.log" && { echo "host path visible inside"; R=1; }
grep -q '^remotes: \[\]' "$T/in.log" || { echo "a remote is left"; R=1; }
grep -q 'remote\|url' <(grep -v '^remotes:' "$T/in.log") && { echo "remote config left"; R=1; }
airlock exec $N -- sh -c 'cd /workspace && echo agent >> f2.txt' || exit 2
airlock review --json $N >"$T/review.json" 2>"$T/review.err"; rc=$?
echo "review rc=$rc $(head -c 300 "$T/review.err")"
paths=$(python3 -c 'import json,sys; print(" ".join(sorted(f["path"] for f in json.load(open(sys.argv[1])).get("files") or [])))' "$T/review.json" 2>/dev/null)
echo "review lists: [$paths]"
[ "$paths" = "f2.txt" ] || { echo "review's baseline differs (expected only f2.txt)"; R=1; }
finish
