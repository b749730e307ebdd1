#!/bin/bash
# A read-only mount's files go into the Secret (under 1 MiB in all). The
# repo's mount source holds a 3 GiB sparse file (no disk used; gitignored).
# The bridge must refuse before reading it: seen, it read every byte into
# memory (4 GiB file: 4.1 GiB resident) and only then said "come to
# 4295197199 bytes". A bigger file takes the host's memory. Got through when
# the bridge's resident memory grows past 512 MiB during up.
. "$(dirname "$0")/lib.sh"
need_cluster
mkdir -p data && truncate -s 3G data/big && echo data/ > .gitignore
write_sandbox "$N" 'mount "d" {
  source = "./data"
  target = "/mnt/d"
}'
airlock ls >/dev/null 2>&1
bp=$(bridge_pid) || setup_error "no bridge"
base=$(awk '/VmRSS/{print $2}' "/proc/$bp/status")
SBS="$N"; git add -A >/dev/null; git commit -qm i >/dev/null
timeout 300 airlock up --yes >"$T/up.log" 2>&1 &
up=$!; peak=$base
while kill -0 $up 2>/dev/null; do
  r=$(awk '/VmRSS/{print $2}' "/proc/$bp/status" 2>/dev/null) || break
  [ "$r" -gt "$peak" ] && peak=$r
  sleep 0.2
done
h=$(awk '/VmHWM/{print $2}' "/proc/$bp/status" 2>/dev/null); [ -n "$h" ] && [ "$h" -gt "$peak" ] && peak=$h
echo "up: $(head -c 240 "$T/up.log")"
echo "bridge RSS: $((base / 1024)) MiB before, peak $((peak / 1024)) MiB"
result $(( (peak - base) > 524288 ))
