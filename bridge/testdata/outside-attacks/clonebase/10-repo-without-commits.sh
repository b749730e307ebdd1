#!/bin/bash
# Clone mode, a repository with no commits (unborn HEAD): wsclone clones it,
# copyCommit cannot use HEAD and CopyBaseline falls back to the snapshot
# script run on the HOST in the copy. The user's .git/config has a clean
# filter applied by .gitattributes; files are untracked. Does the filter run
# from git in the copy, and are the agent's later changes (edit, delete,
# new autorun file) all listed by review?
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo || exit 2
printf 'echo "pwd=$(pwd)" >> %s\ncat\n' "$M" > .x.sh; git config filter.x.clean "sh $T/repo/.x.sh"
echo '* filter=x' > .gitattributes; echo one > a.txt; echo two > b.txt; write_sandbox clone
U=; for i in 1 2 3; do airlock up --yes >"$T/up.log" 2>&1 && { U=1; break; }; sleep 1; done
if [ -z "$U" ]; then
	grep -q "ownership: open .*/workspace/.git/index" $T/up.log || { cat $T/up.log; exit 2; }
	# The baseline step (host snapshot script) ran before the ownership step failed.
	echo "NOTE: up of a repository without commits fails after the baseline: $(head -c 200 $T/up.log)"
fi
[ -s "$M" ] && sort -u "$M" | sed 's/^/host ran: /'
grep -qv "pwd=$T/repo$" "$M" 2>/dev/null && { echo "filter ran from git in the copy"; R=1; }
[ -n "$U" ] || finish
airlock exec $N -- sh -c 'cd /workspace && echo changed > a.txt && rm b.txt && printf "{\"scripts\":{\"postinstall\":\"id\"}}" > package.json' || exit 2
airlock review $N --json >$T/review.json 2>$T/review.err; echo "review exit=$? $(head -c 200 $T/review.err)"
python3 - $T/review.json <<'PY' || R=1
import json,sys
d=json.load(open(sys.argv[1])); got={f["path"]:[x["severity"] for x in f.get("flags") or []] for f in d.get("files") or []}
print("listed:",got)
ok={"a.txt","b.txt","package.json"}<=set(got) and "high" in got.get("package.json",[])
sys.exit(0 if ok else 1)
PY
finish
