#!/bin/bash
# 09: 06 with no hide setting: the default globs (.env, *.pem, ...) hide a
# tracked test fixture (test/fixtures/ca.pem, a public certificate many
# projects commit). An honest agent edits src/extension.ts and runs
# `git add -A && git commit`. Got through (medium) = apply, after a review
# that lists only src/extension.ts, creates a branch that deletes the
# tracked .pem (merging it deletes the file from the user's folder too).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"
mkproj; mkdir -p test/fixtures && printf -- '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' > test/fixtures/ca.pem
write_sandbox direct; up_sandbox
airlock exec "$N" -- sh -c 'cd /workspace && export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@x &&
  echo "// feature" >> src/extension.ts && git add -A && git commit -qm feature && git show --stat --oneline HEAD | cat' || exit 2
rv; echo "listed: [$(listed)]"
airlock apply "$N" >"$T/apply.log" 2>&1; echo "apply rc=$? $(tail -2 "$T/apply.log")"
if git rev-parse -q --verify "airlock/$N" >/dev/null; then
	git diff --stat HEAD "airlock/$N"
	if ! git cat-file -e "airlock/$N:test/fixtures/ca.pem" 2>/dev/null && ! is_listed test/fixtures/ca.pem; then
		echo "the branch deletes a tracked file review never listed"; R=1
		git checkout -q "airlock/$N" 2>/dev/null && { [ -e test/fixtures/ca.pem ] && echo "(checkout kept the file on disk)" || echo "(checking the branch out removed test/fixtures/ca.pem from the folder)"; }
	fi
fi
finish
