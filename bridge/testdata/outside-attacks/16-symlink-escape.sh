#!/bin/bash
# Direct mode: symlinks out of the workspace (absolute, ../.., to host home) must be flagged high (FS-SYMLINK-ESCAPE).
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
set -u
B=${AIRLOCK_BIN:?set AIRLOCK_BIN to the directory holding airlock}; export PATH=$B:$PATH; unset AIRLOCK_BIN  # airlock itself reads AIRLOCK_BIN
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
ln -s /root/.ssh/id_rsa key-link; ln -s ../../../../etc/shadow deep-link; mkdir -p d; ln -s /root d/home
ln -s ../.git/hooks hooks-link
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
for p in key-link deep-link d/home; do high_for $p || { echo "escaping symlink not flagged high: $p"; R=1; }; done
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
[ $R = 1 ] && echo "RESULT: attack SUCCEEDED" || echo "RESULT: defended"
exit $R
