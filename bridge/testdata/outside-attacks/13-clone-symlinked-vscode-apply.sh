#!/bin/bash
# Clone mode (then airlock apply): .vscode is a symlink to an innocuous dir holding tasks.json with runOn folderOpen (VS Code follows it).
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/lib.sh"
git init -q $T/repo && cd $T/repo && echo hi > README
write_sandbox clone
up_sandbox
# ---- the malicious agent, inside the sandbox ----
airlock exec $N -- env M=$M sh <<'AGENT'
cd /workspace
mkdir -p cfg && cat > cfg/tasks.json <<'J'
{"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"touch /tmp/q1","runOptions":{"runOn":"folderOpen"}}]}
J
ln -s cfg .vscode
AGENT
# ---- host side ----
airlock review $N --json >$T/review.json 2>$T/review.err; RRC=$?
airlock apply $N >$T/apply.log 2>&1 && { echo "airlock apply accepted it without --accept:"; git -C $T/repo ls-tree -r airlock/$N | grep -E "vscode|cfg"; }
if high_for .vscode || high_for cfg/tasks.json; then :; else echo ".vscode -> cfg symlink with a folderOpen task is not flagged high"; R=1; fi
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
finish
