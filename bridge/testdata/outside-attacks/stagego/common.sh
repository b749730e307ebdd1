# Shared by this round (sourced after ../lib.sh): a direct-mode namespace
# sandbox on a copy of ~300 files of Go's src (mkproj), review into
# $T/review.json (rv), and gittree: the tree host git itself stages from
# the live folder (same private flags as review, scratch index), to set
# beside review's snapshot.
mkproj() {
	git init -q "$T/repo" && cd "$T/repo" || exit 2
	cp -r /usr/local/go/src/strings /usr/local/go/src/bufio /usr/local/go/src/sort /usr/local/go/src/unicode . 2>/dev/null || exit 2
	find . -name testdata -prune -exec rm -rf {} + ; ls >/dev/null
}
rv() { timeout "${2:-120}" airlock review "$N" --json >"$T/review.json" 2>"$T/review.err"; echo "review rc=$?" ; grep -v '^$' "$T/review.err" | tail -2; }
snap() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("snapshot",""))' "$T/review.json"; }
listed() { python3 -c 'import json,sys; print(" ".join(sorted(f["path"] for f in json.load(open(sys.argv[1])).get("files") or [])))' "$T/review.json"; }
# gittree: what `git add -A` + `git write-tree` give for the live folder now
gittree() {
	local gd=$T/gitcmp; rm -rf "$gd"; git init -q --bare "$gd"
	GIT_DIR=$gd GIT_WORK_TREE=$T/repo GIT_INDEX_FILE=$gd/idx GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
		git -c core.excludesFile=/dev/null -c core.symlinks=true -c core.fileMode=true -c core.autocrlf=false \
		add -A --ignore-errors -- . >/dev/null 2>"$T/gitadd.err"
	GIT_DIR=$gd GIT_INDEX_FILE=$gd/idx git write-tree
}
# rvgo: rv with the sandbox's bridge (which runs review) under strace; says
# whether git staged (an exec of `git add` or `git write-tree`) or the Go
# stager did (neither), and STAGE_S: the time from the exec of `git status`
# (the survey) to the next git command (diff-tree after the Go stager, add
# on the git path).
bridgepid() {
	local p
	for p in $(pgrep -f "airlock bridge"); do
		tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -qx "AIRLOCK_HOME=$AIRLOCK_HOME" && { echo $p; return; }
	done
}
rvgo() {
	local bp sp; bp=$(bridgepid); STAGER=unknown; STAGE_S=
	[ -n "$bp" ] || { echo "no bridge process found: not traced"; rv "$@"; return; }
	strace -f -v -s 200 -ttt -qq -e trace=execve -e signal=none -o "$T/exec.log" -p "$bp" & sp=$!
	sleep 0.5; rv "$@"; sleep 0.2; kill "$sp"; wait "$sp" 2>/dev/null
	STAGE_S=$(awk '/execve\(/ { if ($0 ~ /"status"/) st=$2; else if (st && ($0 ~ /"diff-tree"/ || $0 ~ /"add"/)) { printf "%.2f", $2-st; exit } }' "$T/exec.log")
	echo "status exec -> next git (staging): ${STAGE_S:-?} s"
	if grep -qE '"(add|write-tree)"' "$T/exec.log"; then STAGER=git; elif grep -q '"status"' "$T/exec.log"; then STAGER=go; fi
	echo "staged by: $STAGER"
}
