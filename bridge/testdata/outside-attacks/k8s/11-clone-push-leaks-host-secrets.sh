#!/bin/bash
# Clone mode on kubernetes pushes the host folder as a tar stream. The plan
# says "a private clone" as for the namespace backend, whose clone carries
# no .git/config of the host's and no ignored files. The host repo here has
# a remote URL with a token and an http.extraHeader in .git/config, and a
# gitignored file holding a secret. Got through when any of the three is
# readable inside the pod (namespace clone mode shows none of them).
. "$(dirname "$0")/lib.sh"
need_cluster
git remote add origin "https://alice:ghp_TOKEN$$@github.com/alice/x.git"
git config http.extraHeader "Authorization: Bearer HDR$$"
echo ignored.txt > .gitignore; echo "IGNORED$$" > ignored.txt
write_sandbox "$N"; up_sandbox "$N"
out=$(inside "$N" 'cat .git/config ignored.txt 2>/dev/null; git config --get-regexp "remote|http" 2>/dev/null')
bad=0
for s in "ghp_TOKEN$$" "HDR$$" "IGNORED$$"; do
  echo "$out" | grep -q "$s" && { echo "inside the pod: $s"; bad=1; }
done
result $bad
