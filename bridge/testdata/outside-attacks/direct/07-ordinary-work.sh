#!/bin/bash
# 07: ordinary agent work must still work: edit files, npm-style install into node_modules (local
# package, no network), git commit on the agent's private git, review shows the changes, host git ok.
SB=atk07
. "$(dirname "$0")/lib.sh"
mkrepo; up
ax bash -c 'set -e; cd /workspace
echo "console.log(2)" > src/index.js; mkdir -p lib && echo x > lib/new.txt; mv lib/new.txt lib/renamed.txt
mkdir -p /tmp/pkg && printf "{\"name\":\"localpkg\",\"version\":\"1.0.0\"}\n" > /tmp/pkg/package.json && echo "module.exports=1" > /tmp/pkg/index.js
printf "{\"name\":\"app\",\"version\":\"1.0.0\"}\n" > package.json
(cd /tmp/pkg && npm pack --silent >/dev/null) && npm install --no-audit --no-fund --offline /tmp/pkg/localpkg-1.0.0.tgz >/dev/null 2>&1
test -f node_modules/localpkg/index.js
git add -A && git -c user.email=a@a -c user.name=agent commit -qm "agent work" && git log --oneline | head -2' || { echo "ordinary work failed inside"; succeeded; }
R=$(timeout 120 airlock review "$SB" 2>&1); echo "$R" | tail -4
( cd "$WS" && git status --short | head -5 ) || true
echo "$R" | grep -q 'src/index.js' && [ -f "$WS/node_modules/localpkg/index.js" ] && defended
echo "ordinary work broken"; succeeded
