#!/bin/bash
# 03: 400 changed files in race/ (pack path); while review's two readers
# read them, the agent flips race/ between the real directory and a
# symlink to a host folder holding files of the same names (a marker the
# host put there; the symlink's target is absolute, resolved on the host
# by anything that follows it). Also a symlink race/f7 -> host file.
# Got through = the marker reaches review's private store (a host file
# read through a link), or after the agent stops the snapshot is not git's
# own tree of the live folder.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkdir -p "$T/secret"; for i in $(seq 0 399); do echo "HOSTSECRET-$i" > "$T/secret/f$i.txt"; done
mkproj; write_sandbox direct; up_sandbox
rv >/dev/null
many 400 race
airlock exec $N -- sh -c "cd /workspace && cp -r race race.b" || exit 2
A="import os,time,sys
os.chdir('/workspace'); end=time.time()+float(sys.argv[2]); k=0
while time.time()<end:
    os.rename('race','race.a'); os.symlink(sys.argv[1],'race'); time.sleep(0.0005)
    os.unlink('race'); os.rename('race.a','race'); time.sleep(0.002); k+=1
print('agent flips',k,flush=True)"
for k in 1 2 3; do
	airlock exec $N -- python3 -c "$A" "$T/secret" 6 >"$T/agent.log" 2>&1 & AP=$!
	sleep 1; rvgo; wait $AP; cat "$T/agent.log"
done
airlock exec $N -- sh -c "cd /workspace && ls race | wc -l && test -d race && ! test -L race" || exit 2
rv >/dev/null; S=$(snap); G=$(gittree); echo "after: snapshot $S / git $G"
[ -n "$S" ] && [ "$S" = "$G" ] || { echo "snapshot differs from git's tree of the live folder"; R=1; }
if git --git-dir="$AIRLOCK_HOME/sandboxes/$N/review/git" cat-file --batch-all-objects --batch 2>/dev/null | grep -a -m3 HOSTSECRET; then
	echo "host file content in review's store"; R=1
fi
finish
