#!/bin/bash
# Direct mode: write config (fsmonitor, hooksPath, pager, filter) and hooks into /workspace/.git, then run host git and airlock diff/review/stop/start.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/lib.sh"
git init -q $T/repo && cd $T/repo && echo hi > README
write_sandbox direct
up_sandbox
# ---- the malicious agent, inside the sandbox ----
airlock exec $N -- env M=$M sh <<'AGENT'
cd /workspace
git config core.fsmonitor "touch $M-fsm; echo"; git config core.hooksPath /workspace/hk; git config alias.st "!touch $M-alias"
git config core.pager "touch $M-pager; cat"
mkdir -p hk .git/hooks; for h in post-checkout pre-commit post-index-change reference-transaction pre-auto-gc post-commit; do printf '#!/bin/sh\ntouch %s-%s\n' "$M" $h > .git/hooks/$h; done; chmod +x .git/hooks/*
printf 'gitdir: /tmp\n' > .git/commondir 2>/dev/null; rm -f .git/commondir
echo "* filter=x" > .git/info/attributes; git config filter.x.clean "touch $M-filter; cat"
echo x >> README
AGENT
# ---- host side ----
airlock review $N --json >$T/review.json 2>$T/review.err; RRC=$?
airlock diff $N >/dev/null 2>&1; airlock stop $N >/dev/null 2>&1; airlock start $N >/dev/null 2>&1; airlock review $N >/dev/null 2>&1
for c in "status" "diff" "log -1" "commit -qam x" "checkout -q -b t" "gc -q"; do git $c >/dev/null 2>&1; done
ls $T/pwned* 2>/dev/null && { echo "planted .git content ran on host"; R=1; }
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
finish
