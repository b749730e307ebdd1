#!/bin/bash
# Direct mode: read hide-glob files (.env, config/.env.local, *.pem) via hard links, renaming the parent dir, symlinks, .. paths, /proc/1/root, git objects.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
set -u
B=${AIRLOCK_BIN:?set AIRLOCK_BIN to the directory holding airlock}; export PATH=$B:$PATH; unset AIRLOCK_BIN  # airlock itself reads AIRLOCK_BIN
T=$(mktemp -d /tmp/atk.XXXXXX); export AIRLOCK_HOME=$T/home; mkdir -p $AIRLOCK_HOME
M=$T/pwned; N=s$$; R=0
export GIT_AUTHOR_NAME=u GIT_AUTHOR_EMAIL=u@x GIT_COMMITTER_NAME=u GIT_COMMITTER_EMAIL=u@x
cleanup(){ cd /; airlock rm $N >/dev/null 2>&1; airlock bridge -stop >/dev/null 2>&1; rm -rf $T; }
trap cleanup EXIT
git init -q $T/repo && cd $T/repo && echo hi > README
printf ".env\n.env.*\n*.pem\n" > .gitignore; mkdir -p config; echo "TOPSECRET-$$-A" > .env; echo "TOPSECRET-$$-B" > config/.env.local; echo "TOPSECRET-$$-C" > server.pem
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
airlock exec $N -- env M=$M sh >$T/agent.out 2>&1 <<'AGENT'
cd /workspace
for f in .env config/.env.local server.pem; do echo "direct cat $f: $(cat $f 2>&1)"; done
ln .env /tmp/h 2>/dev/null && cat /tmp/h; ln config/.env.local l2 2>/dev/null && cat l2
mv config config2 2>/dev/null && cat config2/.env.local 2>/dev/null; mv config2 config 2>/dev/null
ln -s .env s1 && cat s1 2>/dev/null; cat /workspace/./config/../.env 2>/dev/null
find / -xdev -name '.env*' 2>/dev/null | head; grep -r TOPSECRET /run /home /etc /tmp 2>/dev/null | head
git cat-file --batch-all-objects --batch 2>/dev/null | grep -a TOPSECRET | sed 's/^/git-objects: /'
cat /proc/1/root/workspace/.env 2>/dev/null
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
cat $T/agent.out; grep -q TOPSECRET $T/agent.out && { echo "agent read hidden file"; R=1; }
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
[ $R = 1 ] && echo "RESULT: attack SUCCEEDED" || echo "RESULT: defended"
exit $R
