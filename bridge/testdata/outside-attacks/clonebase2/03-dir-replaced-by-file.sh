#!/bin/bash
# Clone mode. A tracked directory conf/ (conf/a.ini) that the user's
# working tree has replaced by a regular FILE named conf (uncommitted).
# git status: " D conf/a.ini", "?? conf". copyChanged: os.Lstat of
# src/conf/a.ini fails with ENOTDIR (not ErrNotExist), so it is not taken
# as a deletion but copied (Lstat again -> error), and "conf" is then copied
# onto the clone's non-empty directory. Does up work, with conf a file in
# the sandbox and in the base? Fails if up breaks or differs.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo || exit 2
mkdir conf; echo 'k=1' > conf/a.ini; echo hi > README
write_sandbox clone; git add -A && git commit -qm init || exit 2
rm -rf conf; echo 'now a file' > conf
git status --porcelain
if ! airlock up --yes >"$T/up.log" 2>&1; then
	echo "airlock up FAILS for a tracked dir replaced by a file:"; tail -3 $T/up.log; R=1; finish
fi
got=$(airlock exec $N -- sh -c 'cd /workspace; cat conf; git cat-file -p refs/airlock/base:conf 2>&1' 2>&1); echo "sandbox: $got"
[ "$got" = "now a file
now a file" ] || { echo "copy/base differ from the user's tree"; R=1; }
finish
