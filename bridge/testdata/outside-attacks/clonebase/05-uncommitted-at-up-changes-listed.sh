#!/bin/bash
# Clone mode, host-side baseline with uncommitted work at `airlock up`
# (modified, deleted, untracked files, odd names: leading dash, newline,
# 200-char path) and a tracked hidden .env. The agent then undoes or edits
# each of them and writes .env. Is every change the agent made listed by
# review (against the right base), and does .env stay out of review AND of
# the branch apply makes (hidden both ways)?
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo || exit 2
L=$(printf 'd%.0s' $(seq 1 60))/$(printf 'e%.0s' $(seq 1 60))/$(printf 'f%.0s' $(seq 1 70)).txt
echo committed > a.txt; echo readme > README; echo "TOPSECRET=$$" > .env; mkdir -p "$(dirname $L)"; echo long > "$L"
write_sandbox clone; git add -A && git add -f .env && git commit -qm init || exit 2
echo uncommitted > a.txt; rm README; echo untracked > u.txt; echo dash > ./-dash; printf 'nl\n' > "$(printf 'new\nline')"; echo long2 > "$L"
U=; for i in 1 2 3; do airlock up --yes >"$T/up.log" 2>&1 && { U=1; break; }; sleep 1; done; [ -n "$U" ] || { cat $T/up.log; exit 2; }
# ---- the agent ----
airlock exec $N -- env L="$L" sh -c 'cd /workspace && echo committed > a.txt && echo readme > README && rm u.txt && echo x >> ./-dash && echo x >> "$(printf "new\nline")" && echo long > "$L" && echo "AGENT=1" > .env' || exit 2
airlock review $N --json >$T/review.json 2>$T/review.err; echo "review exit=$?"
python3 - $T/review.json "$L" <<'PY' || R=1
import json,sys
d=json.load(open(sys.argv[1])); got={f["path"] for f in d.get("files") or []}
want={"a.txt","README","u.txt","-dash","new\nline",sys.argv[2]}
print("listed:", sorted(repr(p) for p in got))
miss=want-got
if miss: print("MISSING from review:", sorted(map(repr,miss)))
if ".env" in got: print(".env listed (hidden file reviewed)")
sys.exit(1 if miss else 0)
PY
airlock apply $N >$T/apply.log 2>&1; echo "apply rc=$?"
if git cat-file -e "airlock/$N:.env" 2>/dev/null; then
	e=$(git show "airlock/$N:.env"); echo "branch .env: $e"; [ "$e" = "TOPSECRET=$$" ] || { echo "agent's .env reached the branch unreviewed"; R=1; }
fi
finish
