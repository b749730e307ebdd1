# Shared by this round (sourced after ../lib.sh, ../ignwalk/common.sh,
# ../history/common.sh). plant SCRIPT-FILE [ENV]: copy a script into the
# sandbox and run it as the agent. as_told NAME PAT: what a careful user
# does with apply's refusals: apply with no accepts; take the final
# tree's rules it asks for; then read every (commit, path) the history
# refusal names with `airlock diff --commit` (SAW=1 if one shows PAT) and
# apply with exactly the accepts asked for, to branch t-NAME (BR).
plant() { airlock exec -i "$N" -- sh -c 'cat > /tmp/plant.sh' < "$1" || exit 2; ag "${2:-} sh /tmp/plant.sh"; }
as_told() {
	local n=$1 pat=$2 fin acc L; SAW=0; BR=t-$n
	rv; echo "  listed: [$(listed)]"
	airlock apply "$N" --branch "$BR" >"$T/apply.log" 2>&1; ARC=$?; echo "  apply rc=$ARC"; fold -w 3000 "$T/apply.log" | head -4
	[ $ARC = 0 ] && return
	fin=$(grep -o 'high flags not accepted: [A-Z, -]*' "$T/apply.log" | head -1 | sed 's/.*: //; s/ //g'); L=$T/apply.log
	if [ -n "$fin" ]; then airlock apply "$N" --branch "$BR" --accept "$fin" >"$T/apply1.log" 2>&1; ARC=$?; L=$T/apply1.log
		echo "  apply --accept $fin rc=$ARC"; fold -w 3000 "$L" | head -4; [ $ARC = 0 ] && return; fi
	grep -o 'commit [0-9a-f]\{12,\}: [^:;]*:' "$L" | sort -u > "$T/named.txt"
	local c p drc; while read -r _ c p; do c=${c%:}; p=${p%:}
		airlock diff "$N" --commit "$c" "$p" >"$T/d.out" 2>&1; drc=$?
		echo "  user reads: diff --commit $c $p rc=$drc: $( { [ $drc = 0 ] && grep '^[-+][^-+]' "$T/d.out" || head -2 "$T/d.out"; } | tr '\n' ' ' | cut -c1-240)"
		grep -q -- "$pat" "$T/d.out" && SAW=1; done < "$T/named.txt"
	acc=$(grep -o -- '--accept HISTORY:[0-9a-f]*' "$L" | sort -u | tr '\n' ' ')
	[ -n "$acc" ] || return
	airlock apply "$N" --branch "$BR" ${fin:+--accept "$fin"} $acc >"$T/apply2.log" 2>&1; ARC=$?
	echo "  apply ${fin:+--accept $fin} $acc rc=$ARC: $(tail -2 "$T/apply2.log" | tr '\n' ' ' | cut -c1-300)"
}
