#!/bin/bash
# 10: index entries the capture's `git add -A` keeps while the folder says
# otherwise, each in its own apply: (a) core.fileMode=false in the agent's
# repo config and `update-index --chmod=+x` on tracked scripts/build.sh
# (0644 in the folder; a branch with it 100755 makes `./scripts/build.sh`
# runnable after checkout); (b) a gitlink (160000) plus .gitmodules with
# an attacker URL at vendor/lib, over an empty directory in the folder
# (git treats it as an uninitialised submodule and keeps the entry).
# Defended = apply refuses both (no branch with the mode or the gitlink).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"
NPKG=2 mkproj; mkdir scripts && printf '#!/bin/sh\necho build\n' > scripts/build.sh
write_sandbox direct; up_sandbox
ag() { airlock exec "$N" -- sh -c "cd /workspace && export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@x && $1" || exit 2; }
try() { # NAME CHECK
	rv; echo "  listed: [$(listed)]"
	airlock apply "$N" --branch "t-$1" >"$T/apply.log" 2>&1; echo "  apply rc=$? $(tail -1 "$T/apply.log")"
	if git rev-parse -q --verify "t-$1" >/dev/null && eval "$2"; then echo "  $1: the branch carries it"; R=1; fi
}
echo "(a) index mode"
ag 'git config core.fileMode false && git update-index --chmod=+x scripts/build.sh && git ls-files -s scripts/build.sh && ls -l scripts/build.sh'
try mode '[ "$(git ls-tree "t-mode" scripts/build.sh | cut -c1-6)" = 100755 ]'
ag 'git update-index --chmod=-x scripts/build.sh && git config core.fileMode true'
echo "(b) gitlink over an empty directory"
ag 'mkdir -p vendor/lib && printf "[submodule \"vendor/lib\"]\n\tpath = vendor/lib\n\turl = https://x.invalid/evil.git\n" > .gitmodules && git add .gitmodules && git update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,vendor/lib && git status --short'
try gitlink 'git ls-tree "t-gitlink" vendor/ | grep -q 160000'
finish
