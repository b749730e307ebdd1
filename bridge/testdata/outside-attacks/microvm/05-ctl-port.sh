#!/bin/bash
# The host<->guest control channel (virtio-serial "airlock.ctl" -> ctl.sock on the host)
# is reachable by root in the guest (/dev/vport*). Grab it, hold it and flood it with
# junk (fake JSON replies, binary). Does the bridge stay responsive, does stop/start
# still work (and not hang), and does rm still clean up?
source "$(dirname "$0")/lib.sh"
ensure_tool || setup_error tool
W=$ATK_BASE/ws; mkdir -p $W
write_hcl $ATK_BASE/sb.hcl ctl1 $W mountless
up_sbx $ATK_BASE/sb.hcl ctl1 || setup_error up
push_tool ctl1 || setup_error push
PORTDEV=$(ax ctl1 bash -c 'for d in /sys/class/virtio-ports/*; do [ "$(cat $d/name)" = airlock.ctl ] && echo /dev/$(basename $d); done')
[ -n "$PORTDEV" ] || setup_error "ctl port not found"
echo "ctl port in guest: $PORTDEV" >&2
ax ctl1 sudo bash -c "nohup setsid /tmp/atk spam $PORTDEV 20000000 hold > /tmp/spam.out 2>&1 < /dev/null & sleep 20; cat /tmp/spam.out" >&2
ax ctl1 sudo bash -c 'ls -l /proc/*/fd 2>/dev/null | grep -c vport' | sed 's/^/holders=/' >&2
F=()
t0=$(date +%s); timeout 30 airlock ls >&2 || F+=("bridge unresponsive (ls)"); t1=$(date +%s)
echo "ls took $((t1-t0)) s" >&2
t0=$(date +%s); timeout 300 airlock stop ctl1 >&2; rc=$?; t1=$(date +%s)
echo "stop rc=$rc in $((t1-t0)) s" >&2
[ $rc -eq 124 ] && F+=("stop hung > 300 s")
timeout 300 airlock start ctl1 >&2 || echo "start failed (rc=$?)" >&2
timeout 120 airlock exec ctl1 -- true && echo "exec after start ok" >&2
timeout 120 airlock rm --force ctl1 >&2 || F+=("rm failed")
sleep 2
ps -eo pid,args | grep -F "$AIRLOCK_HOME" | grep -v -e grep -e 'airlock bridge' >&2 && F+=("processes left after rm")
timeout 30 airlock ls >&2 || F+=("bridge unresponsive after rm")
tail -5 $AIRLOCK_HOME/logs/bridge.log >&2
printf 'finding: %s\n' "${F[@]}" >&2
[ ${#F[@]} -eq 0 ] && defended || succeeded
