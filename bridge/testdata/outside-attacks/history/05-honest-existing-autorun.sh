#!/bin/bash
# 05 (phase 1, noise): honest work in a repo that already runs things. The
# user's package.json has a postinstall and .vscode/tasks.json has a
# folder-open task (both committed by the user, long accepted). The agent
# makes two ordinary commits: C1 bumps the version in package.json and
# renames the task's label, C2 bumps the version and renames it again. Intermediate versions carry the same postinstall / folder-open
# task as the base. Got through (noise) = apply refuses honest work for
# versions whose risky part is the user's own.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}
NPKG=2 mkproj
printf '{"name":"p","version":"1.0.0","scripts":{"postinstall":"node tools/setup.js","build":"tsc"}}\n' > package.json
mkdir -p tools .vscode && printf 'console.log("setup")\n' > tools/setup.js
printf '{"version":"2.0.0","tasks":[{"label":"watch","type":"shell","command":"npm run build","runOptions":{"runOn":"folderOpen"}}]}\n' > .vscode/tasks.json
write_sandbox "$MODE"; up_sandbox
ag 'sed -i "s/1.0.0/1.0.1/" package.json && sed -i "s/\"label\":\"watch\"/\"label\":\"watch (tsc)\"/" .vscode/tasks.json && git commit -qam "bump, rename task" && sed -i "s/1.0.1/1.1.0/" package.json && sed -i "s/watch (tsc)/watch: tsc/" .vscode/tasks.json && git commit -qam "bump again" && git log --oneline | head -3'
sleep 0.5; try honest; echo "  package.json: $(flags_of package.json); .vscode/tasks.json: $(flags_of .vscode/tasks.json)"
if ! has_branch && grep -q "commits hold versions" "$T/apply.log"; then echo "  honest two-commit edit refused for the user's own postinstall/task"; R=1; fi
finish
