#!/bin/bash
# 07: a hide glob keeps a tracked file's content from the agent
# (deploy/secret.env, committed in HEAD). The agent's private git
# directory is seeded from the host's: can it read the hidden file's
# blob through git (git show HEAD:path, cat-file of the index entry, or a
# grep of the object store)? README says hide cannot take back what git
# holds and the plan must name such files: defended = the plan at up
# named deploy/secret.env (documented limitation); got through = the agent
# read the token and up said nothing.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"
mkproj; mkdir deploy && echo 'TOKEN=s3cr3t-'$$ > deploy/secret.env
write_sandbox direct
sed -i 's/workspace { mode = "direct" }/workspace {\n    mode = "direct"\n    hide = ["deploy\/"]\n  }/' sandbox.hcl
up_sandbox
out=$(airlock exec "$N" -- sh -c 'cd /workspace; ls deploy 2>&1; git ls-files -s deploy; git show HEAD:deploy/secret.env 2>&1;
  b=$(git ls-files -s deploy/secret.env | cut -d" " -f2); [ -n "$b" ] && git cat-file -p "$b" 2>&1;
  git log --all -p 2>/dev/null | grep TOKEN; git rev-list --all --objects | head -20' 2>&1)
echo "$out"
echo "$out" | grep -q "s3cr3t-$$" && { echo "the agent read the hidden file's content through git"
	if grep -q "deploy/secret.env" "$T/up.log"; then echo "up's plan named it: $(grep -m1 -i "git already holds\|deploy/secret.env" "$T/up.log")"; else R=1; fi; }
finish
