#!/bin/bash
# Host disk use outside the sandbox's quota: qemu's serial console is a plain file in
# the sandbox's state dir on the HOST ($AIRLOCK_HOME/vm/microvm/NAME/console.log).
# Root in the guest (the agent, via sudo or a --privileged container) writes to
# /dev/ttyS0; does console.log grow without a cap, outside `disk`?
source "$(dirname "$0")/lib.sh"
W=$ATK_BASE/ws; mkdir -p $W
MB=${FLOOD_MB:-48}
write_hcl $ATK_BASE/sb.hcl flood1 $W mountless 'disk = "1GiB"'
up_sbx $ATK_BASE/sb.hcl flood1 || setup_error "up"
C=$AIRLOCK_HOME/vm/microvm/flood1/console.log
[ -f $C ] || setup_error "no console.log at $C"
S0=$(stat -c %s $C)
T0=$(date +%s)
# round 1: from a root shell in the guest
ax flood1 sudo bash -c "stty -F /dev/ttyS0 raw -echo 2>/dev/null; head -c $((MB/2))M /dev/zero | tr '\0' 'A' > /dev/ttyS0 && echo FLOOD1-OK" || setup_error "flood 1"
S1=$(stat -c %s $C)
# round 2: from a privileged container (the docker group is enough, no sudo needed)
ensure_tool || setup_error tool
push_tool flood1 || setup_error "push tool"
wait_docker flood1 || setup_error docker
build_atk_image flood1 || setup_error image
ax flood1 docker run --rm --privileged atk spam /dev/ttyS0 $((MB/2*1024*1024)) >&2
S2=$(stat -c %s $C); T1=$(date +%s)
echo "console.log: start=$S0 after-round1=$S1 after-round2=$S2 bytes; $((T1-T0)) s; sandbox disk=1GiB" >&2
echo "host file: $(ls -la $C)" >&2
# does stop/start rotate or cap it?
airlock stop flood1 >/dev/null 2>&1; S3=$(stat -c %s $C 2>/dev/null || echo gone)
airlock start flood1 >/dev/null 2>&1; S4=$(stat -c %s $C 2>/dev/null || echo gone)
echo "after stop=$S3 after start=$S4" >&2
[ $((S1 - S0)) -ge $((MB/2*1024*1024)) ] || { [ $((S1 - S0)) -gt 0 ] || setup_error "nothing written"; }
if [ $((S2 - S0)) -ge $((MB*1024*1024 * 9 / 10)) ]; then
  echo "finding: guest wrote $(( (S2-S0)/1024/1024 )) MiB into a host file outside the disk quota, no cap seen" >&2
  succeeded
fi
defended
