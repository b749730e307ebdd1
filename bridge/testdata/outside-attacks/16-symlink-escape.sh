#!/bin/bash
# Direct mode: symlinks out of the workspace (absolute, ../.., to host home) must be flagged high (FS-SYMLINK-ESCAPE).
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/lib.sh"
git init -q $T/repo && cd $T/repo && echo hi > README
write_sandbox direct
up_sandbox
# ---- the malicious agent, inside the sandbox ----
airlock exec $N -- env M=$M sh <<'AGENT'
cd /workspace
ln -s /root/.ssh/id_rsa key-link; ln -s ../../../../etc/shadow deep-link; mkdir -p d; ln -s /root d/home
ln -s ../.git/hooks hooks-link
AGENT
# ---- host side ----
airlock review $N --json >$T/review.json 2>$T/review.err; RRC=$?
for p in key-link deep-link d/home; do high_for $p || { echo "escaping symlink not flagged high: $p"; R=1; }; done
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
finish
