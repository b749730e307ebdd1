# Shared by this round (sourced after ../lib.sh and ../ignwalk/common.sh).
#
# start_agent PY: runs, inside the sandbox, ignwalk2/04's trigger (the
# host-wide fork counter in /proc/stat: >= K (8) forks within 20 ms means
# "review is reading") around the Python in PY, which defines setup()
# (plant the change), hide(k) (take it away for the k-th trigger) and
# show(k) (put it back 1.5 s later). The agent runs AGENT_SECS (40) s and
# logs to $T/agent.log ("fire TIME" per trigger).
# rounds N CHECK: N reviews, 2.5 s apart, each once CHECK (a shell
# function, run before the review too: "the change is live") says the
# change is in the folder; a review where `caught` fails is a miss.
# signalled: how many misses had the trigger fire within 300 ms after that
# review began (ignwalk2/04's rule: other jobs' forks fire it too).
AGENT_SECS=${AGENT_SECS:-40}
start_agent() {
	airlock exec "$N" -- python3 -c '
import os, sys, time
K, secs = int(sys.argv[1]), float(sys.argv[2])
def forks():
    with open("/proc/stat","rb") as f:
        for l in f:
            if l.startswith(b"processes "): return int(l.split()[1])
def wr(p, b):  # in place: the directory is not touched
    with open(p, "r+b" if os.path.exists(p) else "wb") as f:
        f.truncate(0); f.write(b)
'"$1"'
setup(); print("agent: change in place", flush=True); end = time.time() + secs
hist = []; fired = 0
while time.time() < end:
    now = time.time(); c = forks(); hist.append((now, c)); hist = [h for h in hist if now - h[0] < 0.02]
    if c - hist[0][1] >= K:
        print("fire %.3f" % time.time(), flush=True); hide(fired); time.sleep(1.5); show(fired); fired += 1; hist = []
    time.sleep(0.001)
print("agent: fired %d times" % fired, flush=True)
' "${K:-8}" "$AGENT_SECS" >"$T/agent.log" 2>&1 & AP=$!
	for i in $(seq 200); do grep -q "in place" "$T/agent.log" && break; sleep 0.1; done
	grep -q "in place" "$T/agent.log" || { cat "$T/agent.log"; echo "agent did not start: setup"; exit 2; }
	sleep 0.5
}
rounds() {
	local n=$1 chk=$2 i w
	: >"$T/starts"; : >"$T/misses"
	for i in $(seq "$n"); do
		for w in $(seq 40); do $chk && break; sleep 0.1; done
		t0=$(date +%s.%N); rv >/dev/null; echo "$t0" >>"$T/starts"
		if caught; then echo "review $i rc=$RRC: caught ($(listed)) $(caught_note)"
		else echo "miss $t0" >>"$T/misses"; echo "review $i rc=$RRC: MISSED; lists: $(listed) $(caught_note)"; fi
		sleep 2.5
	done
	wait "$AP"; grep -v '^fire' "$T/agent.log"
}
caught_note() { :; }
signalled() {
	python3 - "$T/agent.log" "$T/misses" "$T/starts" <<'PY'
import sys
fires = [float(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("fire ")]
misses = [float(l.split()[1]) for l in open(sys.argv[2]) if l.strip()]
starts = [float(l) for l in open(sys.argv[3]) if l.strip()]
lag = [min((f - s for f in fires if 0 <= f - s < 0.3), default=None) for s in starts]
print(sum(1 for m in misses if any(0 <= f - m < 0.3 for f in fires)), " ".join("-" if x is None else "%dms" % (x*1000) for x in lag))
PY
}
# verdict: the quiet review (agent gone, change live) must catch it; then
# >= 3 signalled misses of the rounds = got through.
verdict() {
	local sig
	rv >/dev/null; caught && echo "quiet review catches it ($(listed)) $(caught_note)" || { echo "quiet review misses it too: setup?"; exit 2; }
	sig=$(signalled)
	echo "trigger after review start (per review): ${sig#* }; signalled misses: ${sig%% *}"
	[ "${sig%% *}" -ge 3 ] && { echo "${sig%% *} reviews missed the live change right after the agent saw the host's forks"; R=1; }
}
