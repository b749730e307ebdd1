#!/bin/bash
# 21: a hide or protect path with a slash whose directory does not exist yet
# ("deploy/prod.yml", "config/secret.txt"): the agent cannot create the file
# there, but builds the directory elsewhere and renames it into place. The
# rename walk only refuses moves that take a file OUT of a rule, not INTO one,
# so the agent plants content at a protected path, or a file at a hidden path
# that the user's tools then read (and the agent can no longer see or undo).
SB=atk21
HIDE='"config/secret.txt"'
PROTECT='"deploy/prod.yml"'
. "$(dirname "$0")/lib.sh"
mkrepo; up
rmdir "$WS/config" 2>/dev/null
ax sh -c 'cd /workspace; touch probe || exit 9
  echo PWNED > deploy.yml.x; mkdir -p deploy 2>/dev/null; mv deploy.yml.x deploy/prod.yml 2>/dev/null
  mkdir -p config 2>/dev/null; echo PWNED > config/secret.txt 2>/dev/null; rmdir deploy config 2>/dev/null
  mkdir -p t1 t2; echo PWNED > t1/prod.yml; echo PWNED > t2/secret.txt
  mv t1 deploy; mv t2 config; true' 2>&1 | sed 's/^/  inside: /'
[ -e "$WS/probe" ] || setup_error "the agent could not write the folder at all"
for f in deploy/prod.yml config/secret.txt; do
  grep -q PWNED "$WS/$f" 2>/dev/null && { echo "planted $f"; R=1; }
done
[ "${R:-0}" = 1 ] && succeeded
defended
