#!/bin/bash
# Direct mode, secrets committed once: read hide-glob files (.env, config/.env.local, *.pem) via hard links, renaming the parent dir, symlinks, .. paths, /proc/1/root, git objects.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/lib.sh"
git init -q $T/repo && cd $T/repo && echo hi > README
mkdir -p config; echo "TOPSECRET-$$-A" > .env; echo "TOPSECRET-$$-B" > config/.env.local; echo "TOPSECRET-$$-C" > server.pem
write_sandbox direct
up_sandbox
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
cat $T/agent.out; grep -q TOPSECRET $T/agent.out && { echo "agent read hidden file"; R=1; }
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
finish
