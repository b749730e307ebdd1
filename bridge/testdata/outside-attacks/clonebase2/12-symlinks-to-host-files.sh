#!/bin/bash
# Clone mode. Uncommitted symlinks to host files: untracked leak ->
# /etc/shadow, tracked t.txt replaced by a link to /etc/shadow, a
# .gitattributes that is a symlink to a host file saying "* text eol=crlf",
# and an untracked link up -> ../../ (out of the repository). Host
# copyChanged and copyCommit's host git add must record links (blobs of the
# target path), never the host files' content, in the sandbox and the base.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo || exit 2
echo t > t.txt; printf 'a\nb\n' > w.txt; write_sandbox clone; git add -A && git commit -qm init || exit 2
ln -s /etc/shadow leak; rm t.txt; ln -s /etc/shadow t.txt; echo '* text eol=crlf' > $T/attrs; ln -s $T/attrs .gitattributes; ln -s ../../ up
airlock up --yes >"$T/up.log" 2>&1 || { cat $T/up.log; exit 2; }
got=$(airlock exec $N -- sh -c 'cd /workspace; for p in leak t.txt .gitattributes up; do stat -c "%n %F" $p; git cat-file -p refs/airlock/base:$p; echo; done; git cat-file -p refs/airlock/base:w.txt | od -c | head -2; cat leak t.txt 2>&1 | head -2' 2>&1); echo "$got"
root=$(head -1 /etc/shadow)
case "$got" in *"$root"*) echo "host /etc/shadow content reached the sandbox"; R=1;; esac
case "$got" in *'\r'*) echo "symlinked .gitattributes followed by host git"; R=1;; esac
[ "$(echo "$got" | grep -c 'symbolic link')" = 4 ] || { echo "a link did not arrive as a link"; R=1; }
finish
