#!/bin/bash
# 09: direct tries on hide/protect: pre-create/hardlink/rename into hidden names (so a later host write
# lands in an inode the agent holds), read .env the user creates later, rename the parent of a
# protected file and recreate it, create a protected path that did not exist, rename protected dir.
SB=atk09
HIDE='"config/secret.txt"'
PROTECT='"protected", "conf/app.yaml", ".github"'
PRE_SETUP='mkdir -p conf && echo "orig: 1" > conf/app.yaml'
. "$(dirname "$0")/lib.sh"
mkrepo; up
ax bash -c 'cd /workspace
touch config/secret.txt .env; echo x > h1; ln h1 .env; ln h1 config/secret.txt; mv h1 .env.local
mv conf conf.old; mkdir -p conf; echo "evil: 1" > conf/app.yaml
mkdir -p .github/workflows; echo evil > .github/workflows/ci.yml; mv protected p2; echo evil > protected/keep.txt; true' >/dev/null 2>&1
echo "SECRET09env" > "$WS/.env"; echo "SECRET09cfg" > "$WS/config/secret.txt"; sleep 2
OUT=$(ax bash -c 'cd /workspace; cat .env config/secret.txt h1 .env.local 2>/dev/null; grep -r SECRET09 . 2>/dev/null')
BAD=0
echo "$OUT" | grep -q SECRET09 && { echo "agent read a hidden file"; BAD=1; }
grep -q 'orig: 1' "$WS/conf/app.yaml" || { echo "conf/app.yaml modified"; BAD=1; }
[ -e "$WS/.github/workflows/ci.yml" ] && { echo ".github written"; BAD=1; }
grep -q 'do not touch' "$WS/protected/keep.txt" || { echo "protected modified"; BAD=1; }
[ $BAD -eq 1 ] && succeeded
defended
