#!/bin/bash
# 03: review's staging step is bounded by directTimeout (3 min: git is
# killed and review says "no answer in 3m0s"); the Go stager takes no
# context, so it reads and hashes whatever it was given to the end.
# The agent writes K untracked sparse files just under the 64 MiB limit
# (no disk used in the folder; each one distinct, so each is hashed,
# deflated and written as a loose object in the host state dir), and up to
# 2,000 of them stay on the Go path (maxPathspecs). We time K=$K and
# extrapolate to 1,999 files: got through = the extrapolated staging time
# is past directTimeout (the limit does not hold for the Go stager).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
K=${K:-10}
mkproj; write_sandbox direct; up_sandbox
rv >/dev/null
airlock exec $N -- sh -c "cd /workspace && mkdir big && i=0; while [ \$i -lt $K ]; do printf \"f\$i\" > big/f\$i && truncate -s 67000000 big/f\$i; i=\$((i+1)); done; du -sh big" || exit 2
t0=$(date +%s.%N); rvgo x 200; t1=$(date +%s.%N)
n=$(listed | tr ' ' '\n' | grep -c '^big/')
du -sh "$AIRLOCK_HOME" | sed 's/^/state dir: /'
python3 - "$t0" "$t1" "$K" "$n" "$STAGER" "$T/review.json" "${STAGE_S:-0}" <<'P' || R=1
import sys,json
t0,t1,k,n,who=float(sys.argv[1]),float(sys.argv[2]),int(sys.argv[3]),int(sys.argv[4]),sys.argv[5]
steps={s["Name"]:s["Dur"]/1e9 for s in json.load(open(sys.argv[6])).get("Steps") or []}
st=float(sys.argv[7]); per=st/k; est=per*1999
print(f"review {t1-t0:.1f}s, staging (status exec to diff-tree exec) {st:.1f}s for {k} files (listed {n}, staged by {who}): {per*1000:.0f} ms per file -> ~{est:.0f}s for 1,999 files (directTimeout 180s)")
sys.exit(1 if who=="go" and est>180 else 0)
P
finish
