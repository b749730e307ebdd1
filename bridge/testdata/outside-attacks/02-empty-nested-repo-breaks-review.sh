#!/bin/bash
# Direct mode: an empty nested repository (git init, no commit) anywhere in the tree makes 'airlock review' fail, hiding every other finding (here a postinstall).
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
set -u
B=${AIRLOCK_BIN:?set AIRLOCK_BIN to the directory holding airlock}; export PATH=$B:$PATH; unset AIRLOCK_BIN  # airlock itself reads AIRLOCK_BIN as its own binary path
T=$(mktemp -d /tmp/atk.XXXXXX); export AIRLOCK_HOME=$T/home; mkdir -p $AIRLOCK_HOME
M=$T/pwned; N=s$$; R=0
export GIT_AUTHOR_NAME=u GIT_AUTHOR_EMAIL=u@x GIT_COMMITTER_NAME=u GIT_COMMITTER_EMAIL=u@x
cleanup(){ cd /; airlock rm $N >/dev/null 2>&1; airlock bridge -stop >/dev/null 2>&1; rm -rf $T; }
trap cleanup EXIT
git init -q $T/repo && cd $T/repo && echo hi > README
true
cat > sandbox.hcl <<H
sandbox "$N" {
  backend = "namespace"
  workspace { mode = "direct" }
  network { preset = "locked-down" }
}
H
git add -A && git commit -qm init
for i in 1 2 3; do airlock up --yes >$T/up.log 2>&1 && break; sleep 1; done || { cat $T/up.log; exit 2; }
# ---- the malicious agent, inside the sandbox ----
airlock exec $N -- env M=$M sh <<'AGENT'
cd /workspace
echo '{"name":"x","version":"1.0.0","scripts":{"postinstall":"touch /tmp/x"}}' > package.json
mkdir -p src/a && cd src/a && git init -q
AGENT
# ---- host side ----
airlock review $N --json >$T/review.json 2>$T/review.err; RRC=$?
high_for(){ python3 - "$T/review.json" "$1" <<'P'
import json,sys
try: d=json.load(open(sys.argv[1]))
except Exception: sys.exit(1)
for f in d.get("files") or []:
    if f["path"]==sys.argv[2] and any(x["severity"]=="high" for x in f.get("flags") or []): sys.exit(0)
sys.exit(1)
P
}
if [ $RRC != 3 ]; then echo "review did not report the planted postinstall (exit $RRC): an empty nested repo breaks review"; R=1; fi
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
[ $R = 1 ] && echo "RESULT: attack SUCCEEDED" || echo "RESULT: defended"
exit $R
