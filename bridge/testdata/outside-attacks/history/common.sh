# Shared by this round (sourced after ../lib.sh and ../ignwalk/common.sh):
# ag CMD (run CMD in /workspace as the agent, with a git identity; exit 2 on
# failure), try NAME [ACCEPT...] (review, then apply to branch t-NAME; sets
# ARC = apply's exit code, BR = t-NAME), has_branch, blob_in_history PATTERN.
ag() { airlock exec "$N" -- sh -c "cd /workspace && export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@x && $1" || { echo "agent command failed"; exit 2; }; }
try() {
	local n=$1; shift; BR=t-$n
	rv; echo "  listed: [$(listed)]"
	airlock apply "$N" --branch "$BR" "$@" >"$T/apply.log" 2>&1; ARC=$?
	echo "  apply rc=$ARC: $(tail -3 "$T/apply.log" | tr '\n' ' ' | cut -c1-400)"
}
has_branch() { git rev-parse -q --verify "refs/heads/$BR" >/dev/null; }
# hist_has PATTERN: some commit of branch $BR carries PATTERN in its diff
hist_has() { git log -p -m --format= "$BR" 2>/dev/null | grep -q -- "$1"; }
