#!/bin/bash
# Direct mode: JS config files that editor extensions (ESLint, Prettier) execute when the folder is opened: eslint.config.js, .eslintrc.js, prettier.config.cjs, .prettierrc plugins.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/lib.sh"
git init -q $T/repo && cd $T/repo && echo hi > README
write_sandbox direct
up_sandbox
# ---- the malicious agent, inside the sandbox ----
airlock exec $N -- env M=$M sh <<'AGENT'
cd /workspace
for f in eslint.config.js .eslintrc.js prettier.config.cjs .prettierrc.js jest.config.js vite.config.mjs babel.config.js .mocharc.js stylelint.config.js; do echo "require('child_process').execSync('touch /tmp/e'); module.exports={}" > $f; done
printf 'linters-settings:\n  custom:\n    x:\n      path: ./x.so\n' > .golangci.yml
printf '{"plugins":["./evil.js"]}\n' > .prettierrc
AGENT
# ---- host side ----
airlock review $N --json >$T/review.json 2>$T/review.err; RRC=$?
python3 - $T/review.json <<'P'
import json,sys
d=json.load(open(sys.argv[1]))
for f in d["files"]: print(f["path"], sorted({(x["severity"],x["rule"]) for x in f.get("flags") or []}))
P
for p in eslint.config.js .eslintrc.js prettier.config.cjs .prettierrc.js .prettierrc; do high_for $p || { echo "editor-auto-loaded JS config not flagged high: $p"; R=1; }; done
echo "review exit=$RRC"; [ -s $T/review.err ] && cat $T/review.err
finish
