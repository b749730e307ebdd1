#!/bin/bash
# 01 inside the repository, against the hide globs: hide = ["secrets"]
# (a folder of the user's, untracked, hidden from the sandbox). HEAD
# tracks pub/token.txt (placeholder; .gitignore "/pub"), the user's working
# tree has pub -> secrets (ignored). copyChanged reads src/pub/token.txt
# through the link, i.e. secrets/token.txt, and the hide check only sees
# the name "pub/token.txt": the hidden secret reaches the sandbox.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo || exit 2
mkdir pub secrets; echo placeholder > pub/token.txt; printf '/pub\n/secrets\n' > .gitignore; echo hi > README
write_sandbox clone
sed -i 's|workspace { mode = "clone" }|workspace {\n    mode = "clone"\n    hide = ["secrets"]\n  }|' sandbox.hcl
git add -A && git add -f pub/token.txt && git commit -qm init || exit 2
echo "HIDDEN-TOKEN-$$" > secrets/token.txt; rm -rf pub; ln -s secrets pub
airlock up --yes >"$T/up.log" 2>&1 || { cat $T/up.log; exit 2; }
got=$(airlock exec $N -- sh -c 'ls /workspace; cat /workspace/pub/token.txt' 2>&1); echo "agent: $got"
case "$got" in *HIDDEN-TOKEN-$$*) echo "a file under a hide glob reached the sandbox"; R=1;; esac
finish
