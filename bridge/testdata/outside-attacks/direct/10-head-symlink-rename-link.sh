#!/bin/bash
# 10: HEAD beside objects/refs by other means than a plain create: a symlink
# named HEAD, a file renamed onto HEAD, a hard link named HEAD. Host git
# status in that directory would then honour its config's fsmonitor.
SB=atk10
. "$(dirname "$0")/common2.sh"; . "$(dirname "$0")/lib.sh"
mkrepo; up
ax sh -c 'cd /workspace; mkdir -p d/objects d/refs d/hooks; printf "ref: refs/heads/main\n" > d/x
  ln -s refs/heads/main d/HEAD; mv d/x d/HEAD; ln d/x d/HEAD
  printf "[core]\n\tfsmonitor = \"touch /tmp/atk10-$$;false\"\n" > d/config' 2>&1 | sed 's/^/  inside: /'
[ -d "$WS/d/objects" ] && [ -f "$WS/d/config" ] || setup_error "the directory with objects/refs/config was not made"
rm -f /tmp/atk10-*; (cd "$WS/d" && timeout 10 git status >/dev/null 2>&1)
ls /tmp/atk10-* >/dev/null 2>&1 && { rm -f /tmp/atk10-*; succeeded; }
[ -e "$WS/d/HEAD" ] || [ -L "$WS/d/HEAD" ] && { echo "HEAD exists beside objects"; succeeded; }
defended
