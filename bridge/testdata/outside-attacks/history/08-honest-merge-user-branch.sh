#!/bin/bash
# 08 (phase 1, noise): the agent merges (or rebases onto) a branch the
# USER already has. The user's repo has a branch "feature" (made by the
# user, never merged) whose history once added a package.json "prepare"
# script and later dropped it again, plus a useful src change. The agent
# is asked to "merge feature and fix the conflicts" and runs `git merge
# feature`. Every commit involved already exists in the user's repo; the
# final tree has no script. Got through (noise) = apply refuses, naming
# the user's own commit as the agent's.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}
NPKG=2 mkproj; git add -A && git commit -qm base && git checkout -qb feature
printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc","prepare":"node scripts/gen.js"}}\n' > package.json && git commit -qam "try a prepare step"
printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc"}}\n' > package.json && printf 'export function activate() { return 1; }\n' > src/extension.ts && git commit -qam "drop prepare, activate returns 1"
git checkout -q - ; write_sandbox "$MODE"; up_sandbox
ag 'git for-each-ref --format="%(refname)" | tr "\n" " "; git merge -q --no-edit feature && git log --oneline --graph | head -6'
sleep 0.5; try merge
if ! has_branch && grep -q "commits hold versions" "$T/apply.log" && git merge-base --is-ancestor "$(grep -o 'commit [0-9a-f]*' "$T/apply.log" | head -1 | cut -d' ' -f2)" feature; then
	echo "  apply refused the user's own commit (on the user's branch feature) as the agent's"; R=1
fi
finish
