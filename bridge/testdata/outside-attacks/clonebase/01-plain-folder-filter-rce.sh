#!/bin/bash
# Clone mode, a folder that is not a repository's top: it holds a .git
# directory git does not accept (no HEAD) whose config defines a clean
# filter, and a .gitattributes that applies it. wsclone plain-copies the
# folder (.git included); CopyBaseline then runs the snapshot script on the
# HOST in the copy: `git init` repairs the .git, `git add -A` runs the filter
# as the bridge's uid. Does the filter run on the host at `airlock up`?
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
mkdir -p $T/ws && cd $T/ws || exit 2
git init -q . && rm -f .git/HEAD || exit 2           # a .git that is "not a git repository"
printf '[filter "x"]\n\tclean = sh .x.sh\n' >> .git/config
printf 'echo "uid=$(id -u) host=$(hostname)" >> %s\ncat\n' "$M" > .x.sh
echo '* filter=x' > .gitattributes; echo hello > file.txt
write_sandbox clone
git -C $T/ws rev-parse --show-toplevel >/dev/null 2>&1 && { echo "setup: folder is a repo top"; exit 2; }
U=; for i in 1 2 3; do airlock up --yes >"$T/up.log" 2>&1 && { U=1; break; }; sleep 1; done; [ -n "$U" ] || { cat $T/up.log; exit 2; }
echo "up: $(tail -n 2 $T/up.log | tr '\n' ' ')"
# Nothing has run inside the sandbox yet; the marker is a host path.
if [ -s "$M" ]; then echo "host filter ran during up:"; cat "$M"; R=1; else echo "no filter ran on the host"; fi
finish
