# Shared by this round (sourced after ../lib.sh and ../ignwalk/common.sh).
#
# An attack is Python run inside the sandbox that defines setup() (plant
# the change), hide(k) (take it away for the k-th review) and show(k) (put
# it back after); state between calls lives in the sandbox's /tmp. Two ways
# to time it:
#  TRIGGER=exec (default, deterministic): the harness plays the perfect
#   trigger: `airlock exec` runs hide(k) right before the k-th review and
#   show(k) right after it. PUT-BACK is meant to catch any take-away made in
#   the 5 s before a review, however the agent timed it, so this tests the
#   detector, not the signal.
#   With HIDE_DELAY set, hide(k) starts that many seconds after the review
#   began (in the background), to land while review runs (HIDE_DELAYS: one
#   per review, in turn). BEFORE_REVIEW: a command the harness runs
#   between hide(k) and the review (the user's previous command). ROUND_GAP: seconds
#   between show(k) and the next review (0).
#  TRIGGER=fork: the agent times it itself with ignwalk2/04's trigger (the
#   host-wide fork counter in /proc/stat: >= K (8) forks within 20 ms means
#   "review is reading"), show(k) 1.5 s later; a miss counts only when the
#   trigger fired within 300 ms after that review began (other jobs' forks
#   fire it too). The signal is 04's; on a loaded host it fires 3-60 ms
#   after review starts, and review reads the folder at ~20-40 ms.
# rounds N LIVE: N reviews, each once LIVE (a shell function) says the
# change is in the folder; a review where `caught` fails is a miss.
# verdict: a quiet review (agent idle, change live) must catch it (else
# exit 2); >= 3 misses (signalled ones, in fork mode) = got through.
TRIGGER=${TRIGGER:-exec}; AGENT_SECS=${AGENT_SECS:-40}
PYHEAD='
import os, sys, time, json
FORK = "'"$TRIGGER"'" == "fork"
def forks():
    with open("/proc/stat","rb") as f:
        for l in f:
            if l.startswith(b"processes "): return int(l.split()[1])
def wr(p, b):  # in place: the directory is not touched
    with open(p, "r+b" if os.path.exists(p) else "wb") as f:
        f.truncate(0); f.write(b)
def rd(p): return open(p, "rb").read()
'
start_agent() {
	ATK=$1
	if [ "$TRIGGER" = exec ]; then
		airlock exec "$N" -- python3 -c "$PYHEAD$ATK"'
setup()' >"$T/agent.log" 2>&1 || { cat "$T/agent.log"; echo "setup failed"; exit 2; }
		echo "agent: change in place" >>"$T/agent.log"; sleep "${SETTLE:-0.5}"; return
	fi
	airlock exec "$N" -- python3 -c "$PYHEAD$ATK"'
K, secs = int(sys.argv[1]), float(sys.argv[2])
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
	sleep "${SETTLE:-0.5}"
}
agent_call() { airlock exec "$N" -- python3 -c "$PYHEAD$ATK
$1" >>"$T/agent.log" 2>&1 || { tail -5 "$T/agent.log"; echo "agent call $1 failed: setup"; exit 2; }; }
rounds() {
	local n=$1 chk=$2 i w
	: >"$T/starts"; : >"$T/misses"
	for i in $(seq "$n"); do
		for w in $(seq 40); do $chk && break; sleep 0.1; done
		$chk || { echo "change not live before review $i: setup"; exit 2; }
		if [ -n "${HIDE_DELAYS:-}" ]; then set -- $HIDE_DELAYS; shift $(( (i-1) % $# )); HIDE_DELAY=$1; fi
		if [ "$TRIGGER" = exec ] && [ -n "${HIDE_DELAY:-}" ]; then
			# the take-away while review runs, HIDE_DELAY s after it began
			t0=$(date +%s.%N); (sleep "$HIDE_DELAY"; agent_call "hide($((i-1)))") & HP=$!
			rv >/dev/null; echo "$t0" >>"$T/starts"; wait "$HP"
		else
			[ "$TRIGGER" = exec ] && { agent_call "hide($((i-1)))"; ${BEFORE_REVIEW:-:}; }
			t0=$(date +%s.%N); rv >/dev/null; echo "$t0" >>"$T/starts"
		fi
		[ "$TRIGGER" = exec ] && { agent_call "show($((i-1)))"; sleep "${ROUND_GAP:-0}"; }
		[ "$RRC" = 1 ] && echo "review $i failed: $(tail -1 "$T/review.err")"
		if caught; then echo "review $i rc=$RRC: caught; lists: $(listed) $(caught_note)"
		else echo "miss $t0" >>"$T/misses"; echo "review $i rc=$RRC: MISSED; lists: $(listed) $(caught_note)"; fi
		[ "$TRIGGER" = exec ] || sleep 2.5
	done
	[ "$TRIGGER" = exec ] || wait "$AP"
	grep -v '^fire' "$T/agent.log"
}
caught() { [ "$RRC" = 3 ]; }
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
verdict() {
	local m sig
	[ "${1:-}" = noquiet ] || { sleep "${QUIET_WAIT:-0}"; rv >/dev/null; caught && echo "quiet review catches it; lists: $(listed) $(caught_note)" || { echo "quiet review misses it too: setup?"; exit 2; }; }
	if [ "$TRIGGER" = exec ]; then
		m=$(grep -c . "$T/misses"); echo "$m of $(grep -c . "$T/starts") reviews missed the live change (take-away made by the harness right before each)"
	else
		sig=$(signalled); m=${sig%% *}
		echo "trigger after review start (per review): ${sig#* }; signalled misses: $m"
	fi
	[ "$m" -ge "${THRESH:-3}" ] && { echo "$m reviews missed the live change"; R=1; }
}
# putback_high: the paths review.json flags PUT-BACK high (empty: none).
putback_high() {
	python3 -c 'import json,sys
for f in json.load(open(sys.argv[1])).get("files") or []:
    if any(x["rule"]=="PUT-BACK" and x["severity"]=="high" for x in f.get("flags") or []): print(f["path"])' "$T/review.json" | sort | uniq -c | awk '{print $2 ($1>1 ? "(x"$1")" : "")}' | tr '\n' ' '
}
# honest CMD: run CMD in /workspace inside the sandbox (as the agent).
honest() { airlock exec "$N" -- sh -c "cd /workspace && $1" >>"$T/agent.log" 2>&1 || { tail -3 "$T/agent.log"; echo "honest step failed: setup"; exit 2; }; }
# noise_verdict: got through (R=1) when the review after the honest step
# flags PUT-BACK high anywhere.
noise_verdict() {
	local h; h=$(putback_high)
	echo "review rc=$RRC; lists: $(listed)"; echo "PUT-BACK high on: ${h:-nothing}"
	[ -n "$h" ] && { echo "honest work flagged high as a put-back (exit $RRC)"; R=1; }
}
