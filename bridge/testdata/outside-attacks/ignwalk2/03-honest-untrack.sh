#!/bin/bash
# 03: apply must not refuse honest work. The agent stops tracking a file
# that should never have been committed (git rm --cached config.local.json,
# adds it to .gitignore, commits; the file stays in the folder). Review's
# private index keeps tracking it (git add -A never drops a tracked file
# that is now ignored), so the tree review staged still has it while the
# capture deletes it. Got through (refuses honest work) = apply refuses
# after a clean review.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"
mkproj; echo '{"debug":true}' > config.local.json; write_sandbox direct; up_sandbox
airlock exec "$N" -- sh -c 'cd /workspace && export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@x &&
  git rm -q --cached config.local.json && echo config.local.json >> .gitignore && git add .gitignore && git commit -qm "untrack local config" && git status --short' || exit 2
rv; echo "listed: [$(listed)]"
for f in $(listed); do echo "  $f: $(flags_of "$f")"; done
airlock apply "$N" >"$T/apply.log" 2>&1; echo "apply rc=$? $(tail -2 "$T/apply.log")"
if git rev-parse -q --verify "airlock/$N" >/dev/null; then
	git diff --stat HEAD "airlock/$N"
else
	grep -q "review did not show\|folder still holds" "$T/apply.log" || { echo "apply failed otherwise: setup?"; exit 2; }
	rv >/dev/null; airlock apply "$N" >"$T/apply2.log" 2>&1; echo "after another review, apply rc=$?"
	git rev-parse -q --verify "airlock/$N" >/dev/null && { echo "the second apply worked"; finish; }
	echo "apply refuses an honest untrack, also after the review it asks for"; R=1
fi
finish
