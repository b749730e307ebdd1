#!/bin/bash
# A hostile sandbox.hcl can make up fail after objects exist: disk = "200GiB"
# (no volume that large: the claim never binds, up times out), and the user
# pressing Ctrl-C during such an up. Afterwards nothing labelled with the
# sandbox may remain in the namespace and no state in AIRLOCK_HOME. Got
# through when any pod, claim, Secret or policy (or a state entry) is left.
. "$(dirname "$0")/lib.sh"
need_cluster2
write_sandbox "$N" '  disk = "200GiB"'
git add -A >/dev/null; git commit -qm i >/dev/null; SBS="$SBS $N"
left() { kc get pods,pvc,secrets,networkpolicies -l "airlock.dev/sandbox=$N" --no-headers 2>/dev/null | wc -l; }
bad=0
timeout 400 airlock up --yes >"$T/up1" 2>&1; echo "up (claim never binds): rc $? $(tail -1 "$T/up1")"
sleep 5; l=$(left); echo "objects left: $l"; [ "$l" = 0 ] || bad=1
airlock ls | grep -q "^$N " && { echo "state left"; bad=1; }
airlock up --yes >"$T/up2" 2>&1 & up=$!
for _ in $(seq 30); do [ "$(left)" -ge 3 ] && break; sleep 1; done
echo "during up: $(left) objects"; kill -INT $up; wait $up; echo "Ctrl-C: $(tail -1 "$T/up2")"
sleep 10; l=$(left); echo "objects left: $l"; [ "$l" = 0 ] || bad=1
airlock ls | grep -q "^$N " && { echo "state left"; bad=1; }
result $bad
