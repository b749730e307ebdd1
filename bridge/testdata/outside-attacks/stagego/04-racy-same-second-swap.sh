#!/bin/bash
# 04: racy git with the mtime put back. Host git 2.39.5 here compares
# ctime/mtime in whole seconds (no USE_NSEC), and both git and the Go
# stager smudge (size 0) only entries whose MTIME is not before the index:
# an agent that sets mtime to the past escapes the smudge, and a same-size
# rewrite in the same second as the stat review recorded leaves the entry
# "clean". The agent keeps rewriting f.txt with its reviewed content A
# (mtime 2001), watches its atime (relatime: the first read after a change
# moves it), and when review's `git status` hashes f.txt (and refreshes the
# index stat), writes B (same size, mtime 2001) within that second. Got
# through = a later review does not list f.txt although it now holds B.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; echo "AAAA-benign" > f.txt; write_sandbox direct; up_sandbox
rv >/dev/null
# The racer ran inside the sandbox until the workspace gate stopped
# passing the host's atime through (round ignwalk/08); it runs on the host
# now, on the folder itself, so the same-second swap stays under test.
python3 -c '
import os,sys,time
p=sys.argv[1]
def w(s):
    with open(p,"w") as f: f.write(s)
    os.utime(p,(1000000000,1000000000))
end=time.time()+20; last=None
while time.time()<end:
    w("AAAA-benign\n"); a=os.stat(p).st_atime_ns
    for _ in range(10):
        time.sleep(0.003); b=os.stat(p).st_atime_ns
        if b!=a:
            w("BBBB-pwned!\n"); print("agent: read seen, B written", flush=True); raise SystemExit
print("agent: no read seen", flush=True)
' "$T/repo/f.txt" >"$T/agent.log" 2>&1 & AP=$!
sleep 2; rvgo; echo "review during the loop listed: $(listed)"
wait $AP; cat "$T/agent.log"
grep -q "B written" "$T/agent.log" || { echo "agent never saw the read: setup"; exit 2; }
sleep 1.5; rv; echo "live f.txt: $(cat $T/repo/f.txt)"; echo "listed: $(listed)"
case " $(listed) " in *" f.txt "*) echo "review lists f.txt";; *) echo "review MISSED f.txt (now B)"; R=1;; esac
finish
