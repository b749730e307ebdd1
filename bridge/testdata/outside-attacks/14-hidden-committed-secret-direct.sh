#!/bin/bash
# Direct mode, hide-glob files (.env, config/.env.local, *.pem): committed once, hide cannot take
# back what git already holds (its objects would hand them over): the plan must say so, naming the
# files, for a glob the file wrote (built-in globs never refuse: test fixtures); never committed,
# every way to read them must fail: hard links, renaming the parent dir, symlinks, .. paths,
# /proc/1/root, git objects.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/lib.sh"
git init -q $T/repo && cd $T/repo && echo hi > README
mkdir -p config; echo "TOPSECRET-$$-A" > .env; echo "TOPSECRET-$$-B" > config/.env.local; echo "TOPSECRET-$$-C" > server.pem
write_sandbox direct
read_secrets() {
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
cat $T/agent.out; grep -q TOPSECRET $T/agent.out && { echo "agent read hidden file"; R=1; }
}
# 1. Committed: the plan warns, naming the files the file's own glob matches; up starts.
cat > sandbox.hcl <<H
sandbox "$N" {
  backend = "namespace"
  workspace {
    mode = "direct"
    hide = ["/config/"]
  }
  network { preset = "locked-down" }
}
H
git add -A && git commit -qm init
airlock plan >$T/plan.log 2>&1 || { cat $T/plan.log; exit 2; }
if ! grep -q "hide cannot take back what git already holds" $T/plan.log || ! grep -q "config/.env.local" $T/plan.log; then
	echo "the plan did not name the committed hidden files"; cat $T/plan.log; R=1
fi
if ! airlock up --yes >$T/up.log 2>&1; then
	echo "up refused a repository with committed files matching hide globs"; cat $T/up.log; R=1
fi
airlock rm --force $N >/dev/null 2>&1
write_sandbox direct
# 2. Never committed: up works, nothing can be read.
rm -rf .git && git init -q . && git add README && git commit -qm init
up_sandbox_nocommit() { for i in 1 2 3; do airlock up --yes >"$T/up.log" 2>&1 && return; sleep 1; done; cat "$T/up.log"; exit 2; }
up_sandbox_nocommit
read_secrets
airlock review $N --json >$T/review.json 2>$T/review.err; RRC=$?
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
finish
