#!/bin/bash
# Clone mode. A tracked directory lib/ (lib/x.py) that the user's working
# tree has replaced by a symlink lib -> src (an ordinary refactoring: the
# folder moved, a compatibility link left; not ignored). git status on the
# host: " D lib/x.py" then "?? lib". copyChanged first copies src/lib/x.py
# read THROUGH the host symlink into a real lib/ directory of the clone,
# then tries to put the symlink "lib" where that directory is. Does up
# work, and does the sandbox (and the base) have what the user has (lib a
# symlink to src)? Fails if up breaks or the copy/base differ from the
# user's tree.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo || exit 2
mkdir lib src; echo 'v = 1' > lib/x.py; echo 'v = 2' > src/x.py
write_sandbox clone; git add -A && git commit -qm init || exit 2
rm -rf lib; ln -s src lib
git status --porcelain
if ! airlock up --yes >"$T/up.log" 2>&1; then
	echo "airlock up FAILS for a tracked dir replaced by a symlink:"; tail -3 $T/up.log; R=1; finish
fi
got=$(airlock exec $N -- sh -c 'cd /workspace; stat -c %F lib; git cat-file -t refs/airlock/base:lib 2>&1' 2>&1); echo "sandbox: $got"
case "$got" in "symbolic link"*blob*) ;; *) echo "copy/base differ from the user's tree"; R=1;; esac
finish
