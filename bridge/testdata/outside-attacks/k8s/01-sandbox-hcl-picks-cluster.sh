#!/bin/bash
# Needs no cluster. A checked-in sandbox.hcl must not pick where or how its
# pod runs: namespace, kubeconfig, context, runtime class, storage class,
# node, service account, privileged/host settings, a user other than agent,
# read-write mounts, docker, direct mode. Each must be refused by validate
# (exit 1, with a file:line:col). Got through when any is accepted.
. "$(dirname "$0")/lib.sh"
bad=0
for attr in 'namespace = "kube-system"' 'kubeconfig = "/etc/kubernetes/admin.conf"' 'context = "admin"' \
  'runtime_class = "runc"' 'storage_class = "hostpath"' 'node_name = "control-plane"' \
  'service_account = "default"' 'privileged = true' 'host_network = true' 'host_pid = true' \
  'user = "root"' 'docker = true' 'workspace { mode = "direct" }' \
  'mount "m" {
  source = "/"
  target = "/mnt/host"
  read_only = false
}' 'kubernetes { namespace = "kube-system" }' 'pod { host_network = true }'; do
  printf 'sandbox "k" {\n  backend = "kubernetes"\n  %s\n}\n' "$attr" > sandbox.hcl
  if airlock validate >"$T/v.out" 2>&1; then
    echo "accepted: $attr"; cat "$T/v.out"; bad=$((bad + 1))
  elif ! grep -q 'sandbox.hcl:[0-9]*,[0-9]*' "$T/v.out"; then
    echo "refused without a position: $attr"; cat "$T/v.out"; bad=$((bad + 1))
  fi
done
result $bad
