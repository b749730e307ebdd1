#!/bin/bash
# The README/doc.go list "no host namespaces" for the pod, but the pod spec
# leaves hostUsers unset: the pod shares the node's user namespace, so the
# agent's uid 1000 is the node's uid 1000 (here the host account that owns
# uid 1000), and a set-uid file the agent makes on the claim is a set-uid
# 1000 file on the node's disk. On the test cluster the volumes sit under a
# root-only (0700) directory, so no other host user can run it. Got through
# when the pod's uid_map is the identity (no user namespace of its own), or
# an unprivileged host user can run the agent's set-uid file as uid 1000.
. "$(dirname "$0")/lib.sh"
need_cluster
write_sandbox "$N"; up_sandbox "$N"
map=$(inside "$N" 'cat /proc/self/uid_map' | tr -s ' ' | sed 's/^ //')
echo "uid_map inside: $map"
inside "$N" 'cp /usr/bin/id /workspace/.sid && chmod 4755 /workspace/.sid' || setup_error "plant"
pv=$(kc get pvc "airlock-$N" -o jsonpath='{.spec.volumeName}')
path=$(kubectl --kubeconfig "$KUBECONFIG_FILE" get pv "$pv" -o jsonpath='{.spec.local.path}{.spec.hostPath.path}')
bad=0
[ "$map" = "0 0 4294967295" ] && { echo "pod shares the node's user namespace"; bad=1; }
if [ -n "$path" ] && [ -e "$path/workspace/.sid" ]; then
  ls -l "$path/workspace/.sid"
  out=$(su nobody -s /bin/sh -c "$path/workspace/.sid" 2>&1)
  echo "as nobody: $out"
  echo "$out" | grep -q 'euid=1000\|uid=1000' && { echo "host user ran it as uid 1000"; bad=1; }
fi
result $bad
