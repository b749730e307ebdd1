#!/bin/bash
# `airlock status` must not claim a limit is enforced that the backend does
# not enforce. On the kubernetes backend a pod has no pids limit of its own
# (README), and the test cluster's claims do not enforce their size: running,
# status says both are NOT enforced. Stopped (and after the kubelet evicted
# the pod for filling /tmp) it said "limit pids: ... enforced" and "limit
# disk: ... enforced". Got through when status of the stopped sandbox calls
# a limit enforced that the running one called NOT enforced.
. "$(dirname "$0")/lib.sh"
need_cluster
write_sandbox "$N"; up_sandbox "$N"
airlock status "$N" > "$T/running"
timeout 120 airlock stop "$N" >/dev/null 2>&1 || setup_error "stop"
airlock status "$N" > "$T/stopped"
cat "$T/running" "$T/stopped" | grep '^limit'
bad=0
for l in $(sed -n 's/^limit \([a-z]*\):.*NOT enforced.*/\1/p' "$T/running"); do
  grep "^limit $l:" "$T/stopped" | grep -q ', enforced' && { echo "stopped: $l called enforced"; bad=1; }
done
result $bad
