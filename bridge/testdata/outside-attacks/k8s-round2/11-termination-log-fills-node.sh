#!/bin/bash
# Every container gets /dev/termination-log: a 0666 file the kubelet keeps
# on the node's disk (its pods directory) and bind-mounts in. The pod's
# ephemeral-storage limit is the sandbox's disk (README: /tmp, /var/tmp,
# logs are held to it; the kubelet evicts a pod over it), but writes to that
# file are not counted: with disk = "1GiB" the agent writes 2 GiB (TL_MIB)
# there and the pod keeps running. The same 2 GiB in /tmp gets the pod
# ended within a minute (shown for contrast). On a cluster whose claims do
# enforce their size, this is the pod's way to fill the node's kubelet
# disk (DiskPressure evicts other people's pods). Got through when the pod
# is still running 90 s after writing more than disk to the file; defended
# when the agent cannot write the file (terminationMessagePath, found in
# its mountinfo, out of its reach).
. "$(dirname "$0")/lib.sh"
need_cluster2
mib=${TL_MIB:-2048}
write_sandbox "$N" '  disk = "1GiB"'; up_sandbox "$N"
kc get pod "airlock-$N" -o jsonpath='{.spec.containers[0].resources.limits}{"\n"}'
# Where the kubelet mounted the file (terminationMessagePath): the agent
# looks it up in its mountinfo, and writes there.
tl=$(inside "$N" "awk '/termination/ {print \$5}' /proc/self/mountinfo" | head -1)
echo "termination message file: ${tl:-none}"
[ -n "$tl" ] || setup_error "no termination message file in mountinfo"
if ! inside "$N" "dd if=/dev/zero of=$tl bs=1M count=$mib 2>&1 | tail -1; ls -l $tl"; then
  echo "the agent cannot write $tl"; defended
fi
ph=
for i in $(seq 9); do sleep 10; ph=$(kc get pod "airlock-$N" -o jsonpath='{.status.phase}'); echo "after ${i}0 s: $ph"; [ "$ph" = Running ] || break; done
bad=0; [ "$ph" = Running ] && bad=1
inside "$N" ": > $tl;"'; dd if=/dev/zero of=/tmp/big bs=1M count='"$mib"' 2>&1 | tail -1' >/dev/null 2>&1
for i in $(seq 9); do sleep 10; p2=$(kc get pod "airlock-$N" -o jsonpath='{.status.phase}' 2>/dev/null); [ "$p2" = Running ] || break; done
echo "contrast, same bytes in /tmp: pod ${p2:-gone} after about ${i}0 s"
result $bad
