#!/bin/bash
# 01: ordinary and tricky agent changes on a ~300-file Go project, two
# reviews in a row (the second goes through the Go stager on a warm index):
# same-size edit with mtime put back, chmod +x, file -> symlink to
# /etc/passwd, delete, file -> directory, directory -> file, new files three
# levels deep, an empty file, a symlink to a directory, a unicode name.
# Review must list each change, and its snapshot must be the tree host git
# stages from the same folder (git add -A + write-tree, scratch index).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
rv >/dev/null   # first review: warms review's index
airlock exec $N -- sh -c 'cd /workspace && cp -p strings/strings.go /tmp/r && sed -i "s/^package strings/package strinGs/" strings/strings.go && touch -r /tmp/r strings/strings.go &&
 chmod +x sort/sort.go && rm bufio/scan.go && ln -s /etc/passwd bufio/scan.go && rm sort/search.go &&
 rm strings/reader.go && mkdir strings/reader.go && echo "package x" > strings/reader.go/in.go &&
 rm -rf unicode/utf16 && echo gone > unicode/utf16 && mkdir -p new/a/b && echo hi > new/a/b/c.txt && : > new/empty &&
 ln -s ../sort new/sortlink && echo u > "new/caf$(printf "\303\251").txt"' || exit 2
rvgo; S=$(snap); G=$(gittree)
echo "review snapshot $S"; echo "git's own tree   $G"
L=$(listed); echo "listed: $L"
for p in strings/strings.go sort/sort.go bufio/scan.go sort/search.go strings/reader.go unicode/utf16 new/a/b/c.txt new/empty new/sortlink; do
	case " $L " in *" $p "*|*" $p/"*) ;; *) echo "MISSING from review: $p"; R=1;; esac
done
[ "$STAGER" = go ] || echo "note: git staged this review, not the Go stager"
[ -n "$S" ] && [ "$S" = "$G" ] || { echo "snapshot differs from git's tree"; R=1; }
# a third review with nothing changed must list the same
rv >/dev/null; [ "$(snap)" = "$S" ] || { echo "third review snapshot changed: $(snap)"; R=1; }
finish
