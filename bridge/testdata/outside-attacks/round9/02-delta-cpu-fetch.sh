#!/bin/bash
# 02 (phase 2, item 4: hostgit's RLIMIT_AS bounds memory, not work). The
# agent writes its own pack (history4's deltabomb.py): NB REF_DELTA blobs
# of SZ MiB each (~100 bytes apiece on the wire), all under the 1 GiB
# address-space bound (SZ=400: two index-pack threads hold 800 MB), and
# commits them in the FINAL tree. Review's fetch runs the host's
# index-pack, which rebuilds and hashes every blob; the scan's cat-file
# streams each again. CPU and wall time grow linearly with NB for a pack
# of NB*100 bytes (10 GiB of pack are accepted). Nothing bounds the time:
# no timeout on the fetch. Got through = the host spends more than 20 s
# of git CPU (or review more than 60 s) for a pack under 64 KiB.
D=$(cd "$(dirname "$0")" && pwd); . "$D/common.sh"
MODE=${1:-clone}; SZ=${SZ:-400}; NB=${NB:-20}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
airlock exec -i "$N" -- sh -c 'cat > /tmp/deltabomb.py' < "$D4/deltabomb.py" || exit 2
cat > "$T/plant.sh" <<'P'
set -e
python3 /tmp/deltabomb.py .git/objects/pack $SZ $NB > /tmp/ids
a=$(head -c 65536 /dev/zero | git hash-object --stdin)
t=$( { git ls-tree HEAD; printf '100644 blob %s\tzero.bin\n' $a; i=0; for b in $(cat /tmp/ids); do i=$((i+1)); printf '100644 blob %s\tassets/big%s.bin\n' $b $i; done; } | python3 -c '
import sys,subprocess
top=[];sub=[]
for l in sys.stdin.read().splitlines():
    m,rest=l.split("\t");(sub if rest.startswith("assets/") else top).append((m,rest))
st=subprocess.run(["git","mktree"],input="".join("%s\t%s\n"%(m,r[7:]) for m,r in sub),capture_output=True,text=True,check=True).stdout.strip()
top.append(("040000 tree "+st,"assets"))
print(subprocess.run(["git","mktree"],input="".join("%s\t%s\n"%(m,r) for m,r in top),capture_output=True,text=True,check=True).stdout.strip())')
br=$(git symbolic-ref --short HEAD)
git update-ref refs/heads/$br $(git commit-tree $t -p HEAD -m "C1 assets")
git reset -q --soft HEAD; git read-tree HEAD
ls -la .git/objects/pack | awk '/pack-.*pack/{print $5, $9}' | tr '\n' ' '; echo
P
plant "$T/plant.sh" "SZ=$SZ NB=$NB"
( while [ -d "$T" ] && [ ! -e "$T/stop" ]; do ps -u "$(id -u)" -o pid=,cputimes=,rss=,args= | grep -E ' git ' | grep -v grep | awk '{print $1, $2, $3, $5, $6}' >> "$T/gitps"; sleep 0.5; done ) >/dev/null 2>&1 &
bpid() { for p in $(pgrep -u "$(id -u)" -f 'airlock.* bridge' ); do grep -qz "AIRLOCK_HOME=$AIRLOCK_HOME" /proc/$p/environ 2>/dev/null && { echo $p; return; }; done; }
ctime() { local p=$(bpid); [ -n "$p" ] && awk '{print $14+$15+$16+$17}' /proc/$p/stat || echo 0; }
c0=$(ctime); s=$(date +%s)
/usr/bin/time -o "$T/time" -f "%U %S %e %M" timeout 900 airlock review "$N" > "$T/review.txt" 2> "$T/review.err"; echo "review rc=$? in $(( $(date +%s) - s )) s; CLI+children user/sys/wall/maxrss(kB): $(cat "$T/time")"; tail -2 "$T/review.err" | cut -c1-200; grep -E "HIGH|LARGE|note" "$T/review.txt" | cut -c1-300 | head -4
touch "$T/stop"; sleep 0.6
c1=$(ctime); hz=$(getconf CLK_TCK); bc=$(( (c1 - c0) / hz )); echo "  bridge (pid $(bpid)) + its waited-for children (host git): $bc s of CPU during review"
# per git pid: last seen CPU seconds; sum
cpu=$(awk '{c[$1]=$2; a[$1]=$4" "$5; if ($3>r[$1]) r[$1]=$3} END {t=0; for (p in c) {t+=c[p]; if (c[p]>1) printf "  pid %s: %ss CPU, peak %d kB: %s\n", p, c[p], r[p], a[p] > "/dev/stderr"}; print t}' "$T/gitps" 2>"$T/gitsum")
cat "$T/gitsum"; echo "  host git CPU total: ${cpu:-0} s"
echo "  quarantine packs: $(find "$AIRLOCK_HOME" -path '*quarantine.git/objects/pack/*.pack' -printf '%s ' 2>/dev/null) bytes"
u=$(awk '{printf "%d", $1+$2}' "$T/time"); [ "${u:-0}" -gt "${cpu:-0}" ] && cpu=$u; [ "${bc:-0}" -gt "${cpu:-0}" ] && cpu=$bc
[ "${cpu:-0}" -gt 20 ] && { echo "  the host's git spent ${cpu} s of CPU for a pack of about $((NB*100)) bytes"; R=1; }
finish
