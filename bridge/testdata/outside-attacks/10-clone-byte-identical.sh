#!/bin/bash
# Clone mode: agent rewrites its clone's .git (config, hooks, refs, tags, alternates) and files; host repo (incl. .git) must stay byte-identical through up/exec/diff/review/stop/start.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/lib.sh"
git init -q $T/repo && cd $T/repo && echo hi > README
echo secret > notes.txt
snap(){ (cd $T/repo && find . -printf '%p %m %s %T@\n' | sort; find . -type f -exec sha256sum {} + | sort); }
write_sandbox clone
git add -A && git commit -qm init
git status >/dev/null 2>&1; BEFORE=$(snap | grep -v ' \./\.git/index$')
for i in 1 2 3; do airlock up --yes >$T/up.log 2>&1 && break; sleep 1; done || { cat $T/up.log; exit 2; }
# ---- the malicious agent, inside the sandbox ----
airlock exec $N -- env M=$M sh <<'AGENT'
cd /workspace
git config core.fsmonitor "touch $M-fsm; echo"; mkdir -p .git/hooks; printf '#!/bin/sh\ntouch %s-hook\n' "$M" > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout
echo "/tmp/evilobjs" > .git/objects/info/alternates.x; echo x >> README; echo '{"scripts":{"postinstall":"touch x"}}' > package.json
git add -A; git -c user.name=a -c user.email=a@b commit -qm evil
git update-ref refs/heads/master HEAD; git tag -a -m t v1 2>/dev/null; git checkout -q -b other
ls /run/airlock 2>/dev/null; grep -c . /proc/self/mountinfo >/dev/null
AGENT
# ---- host side ----
airlock review $N --json >$T/review.json 2>$T/review.err; RRC=$?
airlock diff $N >/dev/null 2>&1; airlock stop $N >/dev/null 2>&1; airlock start $N >/dev/null 2>&1; airlock review $N >/dev/null 2>&1
AFTER=$(snap | grep -v ' \./\.git/index$' )
if [ "$BEFORE" != "$AFTER" ]; then echo "host repo changed before apply:"; diff <(echo "$BEFORE") <(echo "$AFTER") | head; R=1; fi
ls $T/pwned* 2>/dev/null && R=1
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
finish
