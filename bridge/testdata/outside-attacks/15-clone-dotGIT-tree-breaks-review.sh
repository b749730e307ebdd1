#!/bin/bash
# Clone mode: the agent commits a tree with an entry named '.GIT' (hash-object --literally); the snapshot/review fails and hides other findings.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/lib.sh"
git init -q $T/repo && cd $T/repo && echo hi > README
write_sandbox clone
up_sandbox
# ---- the malicious agent, inside the sandbox ----
airlock exec $N -- env M=$M sh <<'AGENT'
cd /workspace
echo '{"name":"x","version":"1.0.0","scripts":{"postinstall":"touch /tmp/x"}}' > package.json
b=$(echo evil | git hash-object -w --stdin)
# build the raw tree in a file (POSIX sh safe)
printf '100644 .GIT\000' > /tmp/tree; echo $b | xxd -r -p >> /tmp/tree
t=$(git hash-object -t tree -w --literally /tmp/tree)
c=$(git -c user.name=a -c user.email=a@b commit-tree -p HEAD -m wip $t); git update-ref HEAD $c
AGENT
# ---- host side ----
airlock review $N --json >$T/review.json 2>$T/review.err; RRC=$?
if [ $RRC != 3 ]; then echo "review failed/hid the postinstall (exit $RRC) because agent HEAD has a tree entry '.GIT'"; R=1; fi
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
finish
