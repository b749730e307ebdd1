#!/bin/bash
# Clone mode, a repository top (the copyCommit path: host git add/write-tree/
# commit-tree in the copy). The user's .git/config defines a clean filter,
# a process filter, core.fsmonitor and a pre-commit hook; .gitattributes
# applies the filter; there are uncommitted and untracked files so the host
# runs `git add` on them. Does anything of the repository run on the host from
# git run in the COPY (the new baseline), rather than the user's own git status?
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo || exit 2
printf 'echo "uid=$(id -u) pwd=$(pwd) parent=$(tr "\\\\0" " " </proc/$PPID/cmdline)" >> %s\ncat\n' "$M" > .x.sh; cp .x.sh .git/x.sh; chmod +x .git/x.sh
echo '* filter=x' > .gitattributes; echo one > a.txt; echo hi > README
write_sandbox clone; git add -A && git commit -qm init || exit 2
git config filter.x.clean "sh $T/repo/.x.sh"; git config filter.x.process "sh $T/repo/.x.sh"
git config core.fsmonitor "$T/repo/.git/x.sh"; cp .git/x.sh .git/hooks/pre-commit
: > "$M"  # git status on the host repo by hand would run the filter; start the marker empty
echo two > a.txt; echo new > b.txt; rm README   # uncommitted: modified, untracked, deleted
U=; for i in 1 2 3; do airlock up --yes >"$T/up.log" 2>&1 && { U=1; break; }; sleep 1; done; [ -n "$U" ] || { cat $T/up.log; exit 2; }
# The user's own .git/config filter runs when host git reads the USER's repository (wsclone's
# `git status`, as any git status there would): that is the user's config, not the attack.
# The attack is code running from git invoked in the sandbox's copy (the new host-side baseline).
sort -u "$M" | sed 's/^/host ran: /'
if grep -v "pwd=$T/repo " "$M" | grep -q .; then echo "a filter ran on the host outside the user's own repository"; R=1
else echo "nothing ran from git in the copy (host baseline)"; fi
airlock exec $N -- sh -c 'cd /workspace && git config --list --local | grep -Ei "filter|fsmonitor" ; cat a.txt b.txt; ls README 2>&1' 2>&1 | sed 's/^/guest: /'
finish
