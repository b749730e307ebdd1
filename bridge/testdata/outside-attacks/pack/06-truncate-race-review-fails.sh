#!/bin/bash
# 06: review as a denial of service. 250 changed files of 512 KiB; while
# review runs the agent keeps truncating and rewriting them (O_TRUNC then
# write). The Go stager sees a file change while read and leaves the
# staging to git, and git add dies on a file that shrinks under it
# ("fatal: failed to read ... bytes"): the whole review fails (low,
# fail-closed, nothing wrong shown; 1 of 3 in each of three runs; kept as a
# known limit: an agent that keeps rewriting its files can make review say
# "run it again"). Printed, not judged. Got through = with the agent
# stopped, review does not work again or its snapshot is not git's tree.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
rv >/dev/null
W='import os,sys,time
n=250; end=time.time()+float(sys.argv[1]); os.makedirs("/workspace/t",exist_ok=True); k=0
while True:
    for i in range(n):
        fd=os.open("/workspace/t/f%d"%i,os.O_WRONLY|os.O_CREAT|os.O_TRUNC,0o644); os.write(fd,bytes([65+k%26])*524288); os.close(fd)
    k+=1
    if time.time()>end: break
print("agent rounds",k,flush=True)'
airlock exec $N -- python3 -c "$W" 0 >/dev/null || exit 2
fails=0
for k in 1 2 3; do
	airlock exec $N -- python3 -c "$W" 8 >"$T/agent.log" 2>&1 & AP=$!
	sleep 1.5; rv; wait $AP
	grep -q '"snapshot"' "$T/review.json" 2>/dev/null || fails=$((fails+1))
done
echo "reviews that failed under the race: $fails of 3 (fail-closed; not judged)"
rv >/dev/null; S=$(snap); G=$(gittree); echo "quiet: snapshot $S / git $G"
[ -n "$S" ] && [ "$S" = "$G" ] || { echo "quiet review wrong or failed"; R=1; }
finish
