#!/bin/bash
# The probe's output is read into memory whole (for 30 s at most). The
# agent's ~/.bashrc (read by Debian's bash under sshd, see 10) answers the
# probe script with `head -c 8G /dev/zero`; then the user runs `airlock
# status`. Seen: the bridge's resident memory grew to 6.3 GiB in 30 s, and
# the next status starts it again. Got through when the bridge grows past
# 1 GiB.
. "$(dirname "$0")/lib.sh"
need_cluster
write_sandbox "$N"; up_sandbox "$N"
inside "$N" 'cat > ~/.bashrc <<"E"
case "$BASH_EXECUTION_STRING" in
"for i in /sys/class/net/"*) exec head -c 8000000000 /dev/zero;;
esac
E' || setup_error "plant"
timeout 120 airlock stop "$N" >/dev/null 2>&1 && timeout 120 airlock start "$N" >/dev/null 2>&1 || setup_error "restart"
bp=$(bridge_pid) || setup_error "no bridge"
base=$(awk '/VmRSS/{print $2}' "/proc/$bp/status"); peak=$base
airlock status "$N" >/dev/null 2>&1
for _ in $(seq 40); do
  r=$(awk '/VmRSS/{print $2}' "/proc/$bp/status" 2>/dev/null) || break
  [ "$r" -gt "$peak" ] && peak=$r
  [ $((peak - base)) -gt 1048576 ] && break
  sleep 1
done
echo "bridge RSS: $((base / 1024)) MiB before, peak $((peak / 1024)) MiB"
inside "$N" ': > ~/.bashrc' >/dev/null 2>&1
timeout 30 airlock bridge -stop >/dev/null 2>&1
result $(( (peak - base) > 1048576 ))
