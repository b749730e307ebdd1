#!/bin/bash
# 02: 600 changed files of 64 KiB read by the Go stager's two readers
# while the agent rewrites them round-robin (same size, mtime put back to
# 2001 each time: only ctime tells). During the race review may decline
# (git stages) or snapshot any mix; after the agent stops, the next review
# must hold exactly the live folder (snapshot == git's own tree of it),
# and a review after that must list nothing new. Got through = a stale
# blob survives in review's index (the agent's last bytes never reviewed).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
rv >/dev/null
W='import os,sys,time
n=int(sys.argv[1]); dur=float(sys.argv[2]); os.makedirs("/workspace/race",exist_ok=True)
def w(i,v):
    p="/workspace/race/f%d"%i; s=(b"%c"%(65+v%26))*65536
    fd=os.open(p,os.O_WRONLY|os.O_CREAT|os.O_TRUNC,0o644); os.write(fd,s); os.close(fd); os.utime(p,(1000000000,1000000000))
for i in range(n): w(i,0)
if dur==0: sys.exit(0)
end=time.time()+dur; v=1
while time.time()<end:
    for i in range(0,n,7): w((i+v)%n,v)
    v+=1
print("agent rounds",v,flush=True)'
airlock exec $N -- python3 -c "$W" 600 0 || exit 2
for k in 1 2 3; do
	airlock exec $N -- python3 -c "$W" 600 6 >"$T/agent.log" 2>&1 & AP=$!
	sleep 1; rvgo; wait $AP; cat "$T/agent.log"
done
rv >/dev/null; S=$(snap); G=$(gittree)
echo "after the race: snapshot $S / git $G, packs $(npacks)"
[ -n "$S" ] && [ "$S" = "$G" ] || { echo "snapshot differs from git's tree of the live folder"; R=1; }
rv >/dev/null; [ "$(snap)" = "$S" ] || { echo "a later review moved: $(snap)"; R=1; }
finish
