#!/usr/bin/env bash
# Installs code-server 4.99.4 (a real VS Code, Node 20) and playwright-core into
# editor-ext/e2e/node_modules, following the recipe measured in DESIGN.md:
# its install scripts would download ripgrep and need native build deps, so
# they run by hand with Debian's rg. Needs: libkrb5-dev libsecret-1-dev
# libx11-dev libxkbfile-dev ripgrep chromium (apt). Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
if [ -f node_modules/code-server/.airlock-installed ]; then exit 0; fi
npm install -g node-gyp@12.4.0 >/dev/null 2>&1 || true
npm ci --no-audit --no-fund --ignore-scripts
vs=node_modules/code-server/lib/vscode
( cd "$vs" && npm install --no-audit --no-fund --omit=dev --ignore-scripts )
mkdir -p "$vs/node_modules/@vscode/ripgrep/bin"
cp "$(command -v rg)" "$vs/node_modules/@vscode/ripgrep/bin/rg"
( cd "$vs" && npm rebuild >/dev/null 2>&1 || npm rebuild )
[ -e "$vs/node_modules.asar" ] || ln -s node_modules "$vs/node_modules.asar"
mkdir -p "$vs/bin/remote-cli" "$vs/bin/helpers"
[ -e "$vs/bin/remote-cli/code-server" ] || ln -s ../../../../out/node/entry.js "$vs/bin/remote-cli/code-server" 2>/dev/null || true
[ -e "$vs/bin/helpers/browser.sh" ] || ln -s ../../../../out/node/entry.js "$vs/bin/helpers/browser.sh" 2>/dev/null || true
( cd "$vs/extensions" && npm install --no-audit --no-fund --omit=dev )
npm rebuild argon2 --build-from-source
touch node_modules/code-server/.airlock-installed
