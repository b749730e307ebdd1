#!/bin/bash
# README: "airlock rm k  # pod, claim, Secret and policy deleted". The
# claim goes, but its volume (reclaim policy Retain on the test cluster's
# local volumes) stays Released with home and workspace on the node's disk,
# and is never bound again (128 volumes: the 129th sandbox has no claim).
# The agent writes a marker to its home; after rm the marker must be gone
# from the node (or the volume deleted/recycled). Got through when the file
# is still on the node after rm.
. "$(dirname "$0")/lib.sh"
need_cluster
write_sandbox "$N"; up_sandbox "$N"
inside "$N" "echo AGENT-DATA-$$ > ~/left.txt" || setup_error "write"
pv=$(kc get pvc "airlock-$N" -o jsonpath='{.spec.volumeName}')
path=$(kubectl --kubeconfig "$KUBECONFIG_FILE" get pv "$pv" -o jsonpath='{.spec.local.path}{.spec.hostPath.path}')
[ -n "$path" ] || setup_error "no local path for $pv"
timeout 120 airlock rm --force "$N" >/dev/null 2>&1 || setup_error "rm"
SBS=""; sleep 2
echo "volume $pv after rm: $(kubectl --kubeconfig "$KUBECONFIG_FILE" get pv "$pv" -o jsonpath='{.status.phase}' 2>&1)"
grep -rqs "AGENT-DATA-$$" "$path" && { echo "still on the node: $path/home/left.txt"; gotthrough; }
defended
