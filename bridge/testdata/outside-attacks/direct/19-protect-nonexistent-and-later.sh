#!/bin/bash
# 19: protect paths that do not exist at start (the agent creates them, or
# builds the directory elsewhere and moves it in).
SB=atk19
HIDE='"secret.txt"'
PROTECT='"ci/**", "build.sh", ".github/**", "Makefile"'
. "$(dirname "$0")/lib.sh"
mkrepo; up
ax sh -c 'cd /workspace; echo ok > probe; echo PWNED > build.sh; mkdir -p ci .github/workflows; echo PWNED > ci/run.sh
  echo PWNED > .github/workflows/x.yml; echo x > tmpf; mv tmpf Makefile' 2>&1 | sed 's/^/  inside: /'
[ -f "$WS/probe" ] || setup_error "the agent could not write the folder"
ax sh -c 'cd /workspace; echo PWNED >> Makefile; mkdir -p d; echo PWNED > d/x; mv d ci; mv d .github' 2>&1 | sed 's/^/  inside: /'
grep -rl PWNED "$WS/build.sh" "$WS/ci" "$WS/.github" "$WS/Makefile" 2>/dev/null && succeeded
defended
