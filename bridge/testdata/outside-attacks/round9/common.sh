# Shared by round9's scripts. Each starts with
#   D=$(cd "$(dirname "$0")" && pwd); . "$D/common.sh"
# Sources the harness of the earlier rounds from the directory above
# (or the repository's copy) (lib.sh, ignwalk/common.sh, history/common.sh, history3/common.sh,
# history4/common.sh) and adds: r9proj (an empty repo in $T/repo, cd'd
# into), files_from PY (write files from a python dict literal), e2e_wt
# (worktree of the applied branch in $T/wt), review_rc.
H=${D:?}/..
[ -f "$H/lib.sh" ] && [ -f "$H/history4/common.sh" ] || H=/work/main/bridge/testdata/outside-attacks
D4=$H/history4
. "$H/lib.sh"; . "$H/ignwalk/common.sh"; . "$H/history/common.sh"; . "$H/history3/common.sh"
# history4's helpers (commit_of, wt, npm_in, jsonc, timed) without re-sourcing lib.sh
eval "$(sed -n '/^commit_of()/,$p' "$D4/common.sh")"
r9proj() { git init -q "$T/repo" && cd "$T/repo" || exit 2; }
# apply_plain NAME: review (json), then apply with no accept; ARC, BR
apply_plain() {
	BR=t-$1; rv; echo "  listed: [$(listed)]"
	for p in "${@:2}"; do echo "  $p: $(flags_of "$p")"; done
	airlock apply "$N" --branch "$BR" >"$T/apply.log" 2>&1; ARC=$?
	echo "  apply rc=$ARC: $(tail -2 "$T/apply.log" | tr '\n' ' ' | cut -c1-300)"
}
# e2e_branch: check out the applied branch's tip into $T/wt (git worktree add)
e2e_branch() { rm -rf "$T/wt"; git worktree add -q --detach "$T/wt" "$BR" >/dev/null 2>&1; }
