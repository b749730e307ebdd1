#!/bin/bash
# Direct mode: an empty nested repository (git init, no commit) anywhere in the tree makes 'airlock review' fail, hiding every other finding (here a postinstall).
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/lib.sh"
git init -q $T/repo && cd $T/repo && echo hi > README
write_sandbox direct
up_sandbox
# ---- the malicious agent, inside the sandbox ----
airlock exec $N -- env M=$M sh <<'AGENT'
cd /workspace
echo '{"name":"x","version":"1.0.0","scripts":{"postinstall":"touch /tmp/x"}}' > package.json
mkdir -p src/a && cd src/a && git init -q
AGENT
# ---- host side ----
airlock review $N --json >$T/review.json 2>$T/review.err; RRC=$?
if [ $RRC != 3 ]; then echo "review did not report the planted postinstall (exit $RRC): an empty nested repo breaks review"; R=1; fi
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
finish
