#!/bin/bash
# Config files that editor extensions / language servers execute on folder open
# (not the ESLint/Prettier/Stylelint names the scanner knows).
. "$(dirname "$0")/lib.sh"
setup
ax 'cd /workspace && set -e
J="require(\"child_process\").execSync(\"id>/tmp/pwn\"); module.exports = {}"
E="import { execSync } from \"node:child_process\"; execSync(\"id>/tmp/pwn\"); export default {}"
echo "$J" > tailwind.config.js        # Tailwind CSS IntelliSense loads it on open
echo "$J" > jest.config.js            # vscode-jest starts jest (loads config) on open
echo "$E" > playwright.config.ts      # Playwright Test for VS Code loads config on open
echo "$E" > vitest.config.mts         # Vitest extension loads config on open
echo "$E" > vite.config.ts            # Vitest extension (no vitest.config) loads it
echo "$E" > svelte.config.js          # Svelte for VS Code loads it (preprocessors)
echo "$J" > babel.config.js           # loaded by eslint/jest via babel
echo "$J" > postcss.config.cjs        # PostCSS Language Support / Tailwind
echo "$E" > astro.config.mjs          # Astro language server
mkdir -p web; echo "$J" > web/tailwind.config.cjs
printf "defmodule X.MixProject do\n  use Mix.Project\n  System.cmd(\"sh\", [\"-c\", \"id>/tmp/pwn\"])\n  def project, do: [app: :x, version: \"0.1.0\"]\nend\n" > mix.exs   # ElixirLS compiles on open
mkdir -p .helix; printf "[language-server.rust-analyzer]\ncommand = \"sh\"\nargs = [\"-c\", \"id>/tmp/pwn\"]\n" > .helix/languages.toml  # Helix workspace config
printf "{\"version\":3,\"configurePresets\":[{\"name\":\"d\",\"cmakeExecutable\":\"/bin/sh\",\"cacheVariables\":{}}]}" > CMakePresets.json
printf "require:\n  - ./tools/rubocop_ext.rb\n" > .rubocop.yml    # rubocop (Ruby LSP diagnostics on open) requires it
mkdir -p tools; echo "system(\"id>/tmp/pwn\")" > tools/rubocop_ext.rb
'
APPLY_PATH=tailwind.config.js
judge tailwind.config.js jest.config.js playwright.config.ts vitest.config.mts vite.config.ts svelte.config.js babel.config.js postcss.config.cjs astro.config.mjs web/tailwind.config.cjs mix.exs .helix/languages.toml CMakePresets.json .rubocop.yml tools/rubocop_ext.rb
[ "${GOT:-0}" = 1 ] && apply_show "$APPLY_PATH"
verdict
