#!/bin/bash
# The review snapshot runs in the pod as `sh -s`, found on the agent's PATH
# (~/.local/bin first), so the agent answers it. Its answer here: F lines
# of 4 MiB each, 4 GiB in all. The bridge (a host process) must cap what it
# reads back, not hold it all. Got through when the bridge's resident memory
# grows past 1 GiB during the review (seen: 8 GiB and still growing, and it
# kept reading after the review command was killed).
. "$(dirname "$0")/lib.sh"
need_cluster
echo a > a.txt
write_sandbox "$N"
up_sandbox "$N"
inside "$N" 'mkdir -p ~/.local/bin && cat > ~/.local/bin/sh <<"E"
#!/bin/bash
if [ "$1" = "-s" ]; then /bin/cat >/dev/null; exec python3 -c "
import sys
line=b\"F\tbig.txt\t100644\t\"+b\"QUFB\"*(1<<20)+b\"\n\"
for i in range(1024): sys.stdout.buffer.write(line)
"; fi
exec /bin/sh "$@"
E
chmod +x ~/.local/bin/sh; echo b >> a.txt' || setup_error "plant"
bp=$(bridge_pid) || setup_error "no bridge pid"
base=$(awk '/VmRSS/{print $2}' "/proc/$bp/status")
timeout 120 airlock review "$N" >"$T/review.out" 2>&1 &
rp=$!
peak=$base
for _ in $(seq 120); do
  r=$(awk '/VmRSS/{print $2}' "/proc/$bp/status" 2>/dev/null) || break
  [ "$r" -gt "$peak" ] && peak=$r
  [ $((peak - base)) -gt 1048576 ] && break
  kill -0 "$rp" 2>/dev/null || break
  sleep 1
done
kill "$rp" 2>/dev/null
echo "bridge RSS: $((base / 1024)) MiB before, peak $((peak / 1024)) MiB; review said: $(head -c 300 "$T/review.out")"
# stop the flood: the pod goes, the bridge with it
timeout 60 airlock stop "$N" >/dev/null 2>&1
result $(( (peak - base) > 1048576 ))
