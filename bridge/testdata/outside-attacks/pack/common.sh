# Shared by this round (sourced after ../lib.sh): stagego's helpers
# (mkproj: ~300 files of Go's src, rv, snap, listed, gittree, rvgo), plus
# the private store's packs (npacks), the snapshot's blob for a path
# (snapblob) and highs (the paths review flags high).
. "$(dirname "${BASH_SOURCE[0]}")/../stagego/common.sh" || exit 2
PK() { echo "$AIRLOCK_HOME/sandboxes/$N/review/git/objects/pack"; }
npacks() { ls "$(PK)" 2>/dev/null | grep -c '\.pack$'; }
snapblob() { git --git-dir="$AIRLOCK_HOME/sandboxes/$N/review/git" show "$(snap):$1" 2>/dev/null; }
highs() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(" ".join(sorted(f["path"] for f in d.get("files") or [] if any(x["severity"]=="high" for x in f.get("flags") or []))))' "$T/review.json"
}
# many N DIR: the agent writes N new small distinct files under DIR (the pack path past 200)
many() { airlock exec $N -- sh -c "cd /workspace && mkdir -p $2 && i=0; while [ \$i -lt $1 ]; do echo \"x \$i\" > $2/f\$i.txt; i=\$((i+1)); done" || exit 2; }
# rule_for PATH RULE: review.json has RULE on PATH
rule_for() {
	python3 - "$T/review.json" "$1" "$2" <<'P'
import json,sys
d=json.load(open(sys.argv[1]))
for f in d.get("files") or []:
    if f["path"]==sys.argv[2] and any(x.get("rule")==sys.argv[3] or x.get("Rule")==sys.argv[3] for x in f.get("flags") or []): sys.exit(0)
sys.exit(1)
P
}
