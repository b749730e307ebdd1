#!/bin/bash
# 25: the gate learns about host-side renames from inotify. A burst of host
# changes in a folder the agent has looked at (npm install, a big checkout;
# here a rename loop) overflows the inotify queue (IN_Q_OVERFLOW), and a
# rename made then may never be seen. The agent holds its working directory
# in two folders; the user moves one into a hidden directory and one into a
# protected one in the middle of the burst. Through the held directories the
# agent then tries to create files inside them on the host.
# Defended: nothing the agent writes lands under vault/ or deploy/.
SB=atk25
HIDE='"vault/**"'
PROTECT='"deploy/**"'
PRE_SETUP='mkdir -p vault deploy src/work1 src/work2 flood; echo s > vault/key.txt; echo d > deploy/prod.yml; echo w > src/work1/a; echo w > src/work2/a; : > flood/a'
. "$(dirname "$0")/lib.sh"
mkrepo; up
FIFO=$TOP/go; mkfifo "$FIFO"; OUT=$TOP/in.log
ax sh -c 'ls /workspace/flood >/dev/null
  cd /workspace/src/work1 && ls >/dev/null && exec 8<. && cd /workspace/src/work2 && ls >/dev/null || exit 9
  echo READY; read go
  for i in $(seq 1 20); do echo PWN > planted 2>/dev/null; echo PWN > /proc/self/fd/8/planted 2>/dev/null; sleep 0.5; done
  echo DONE' <"$FIFO" >"$OUT" 2>&1 &
exec 7>"$FIFO"
for i in $(seq 60); do grep -q READY "$OUT" 2>/dev/null && break; sleep 0.5; done
grep -q READY "$OUT" || { cat "$OUT"; setup_error "the holder did not start"; }
# the burst: 100,000 rename events in a watched folder, the user's moves in the middle of it
python3 - "$WS" <<'PY' &
import os, sys
os.chdir(sys.argv[1] + "/flood")
for i in range(50000):
    os.rename("a", "b"); os.rename("b", "a")
PY
FL=$!
sleep 1
mv "$WS/src/work1" "$WS/vault/work1" && mv "$WS/src/work2" "$WS/deploy/work2" || setup_error "host mv"
wait $FL
echo go >&7; exec 7>&-
wait
sed 's/^/  inside: /' "$OUT"
grep -q DONE "$OUT" || setup_error "the holder did not finish"
R=0
for f in vault/work1/planted deploy/work2/planted; do
  [ -e "$WS/$f" ] && { echo "the agent wrote $f"; R=1; }
done
[ $R = 1 ] && succeeded
defended
