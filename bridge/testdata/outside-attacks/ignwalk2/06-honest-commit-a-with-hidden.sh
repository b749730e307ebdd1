#!/bin/bash
# 06: apply must not refuse honest work. The project tracks a file that
# a hide glob keeps from the agent (deploy/secret.env). An honest agent
# edits src/extension.ts and runs the usual `git add -A && git commit`.
# Got through (refuses or damages honest work) = apply refuses after a
# clean review, or the branch drops/changes the hidden tracked file.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"
mkproj; mkdir deploy && echo 'TOKEN=abc' > deploy/secret.env
write_sandbox direct
sed -i 's/workspace { mode = "direct" }/workspace {\n    mode = "direct"\n    hide = ["deploy\/"]\n  }/' sandbox.hcl
up_sandbox
airlock exec "$N" -- sh -c 'cd /workspace && export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@x &&
  echo "// feature" >> src/extension.ts && git status --short && git add -A && git commit -qm feature && git show --stat --oneline HEAD | cat' || exit 2
rv; echo "listed: [$(listed)]"
airlock apply "$N" >"$T/apply.log" 2>&1; echo "apply rc=$? $(tail -2 "$T/apply.log")"
if git rev-parse -q --verify "airlock/$N" >/dev/null; then
	git diff --stat HEAD "airlock/$N"
	git cat-file -e "airlock/$N:deploy/secret.env" 2>/dev/null || { echo "the branch deletes the hidden tracked file"; R=1; }
else
	echo "apply refused honest work"; R=1
fi
finish
