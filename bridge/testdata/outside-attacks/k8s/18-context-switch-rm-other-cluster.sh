#!/bin/bash
# kubernetes.hcl without `context` follows the kubeconfig's current context
# (README: "default: the current context"), and a sandbox's state keeps its
# namespace but not its cluster. The user runs `kubectl config use-context`
# to another cluster where a sandbox of the same name exists (another home,
# or a teammate's namespace of the same name), the bridge restarts, then
# `airlock rm NAME`: seen, rm deleted the OTHER cluster's pod, claim and
# Secret (that sandbox's home lost) and left this sandbox's objects behind
# on its own cluster with no home knowing them. Got through when rm touches
# the other cluster or leaves objects on the first. Needs two clusters:
# AIRLOCK_K8S_HCL and AIRLOCK_K8S_HCL2.
. "$(dirname "$0")/lib.sh"
need_cluster
h2=${AIRLOCK_K8S_HCL2:-}; [ -r "$h2" ] || setup_error "set AIRLOCK_K8S_HCL2 to a second cluster's kubernetes.hcl"
KC2=$(sed -n 's/^kubeconfig *= *"\(.*\)"/\1/p' "$h2")
# one kubeconfig, two contexts, current = the first cluster
mk() { # mk NAME KUBECONFIG: one context of KUBECONFIG renamed NAME in $T/kc
  local f=$2 u
  kubectl --kubeconfig "$T/kc" config set-cluster "$1" --server "$(kubectl --kubeconfig "$f" config view --raw --flatten -o jsonpath='{.clusters[0].cluster.server}')" >/dev/null
  kubectl --kubeconfig "$f" config view --raw --flatten -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d > "$T/$1.ca"
  kubectl --kubeconfig "$T/kc" config set-cluster "$1" --certificate-authority "$T/$1.ca" --embed-certs >/dev/null
  kubectl --kubeconfig "$f" config view --raw --flatten -o jsonpath='{.users[0].user.client-certificate-data}' | base64 -d > "$T/$1.crt"
  kubectl --kubeconfig "$f" config view --raw --flatten -o jsonpath='{.users[0].user.client-key-data}' | base64 -d > "$T/$1.key"
  kubectl --kubeconfig "$T/kc" config set-credentials "$1" --client-certificate "$T/$1.crt" --client-key "$T/$1.key" --embed-certs >/dev/null
  kubectl --kubeconfig "$T/kc" config set-context "$1" --cluster "$1" --user "$1" >/dev/null
}
: > "$T/kc"; mk one "$KUBECONFIG_FILE"; mk two "$KC2"
kubectl --kubeconfig "$T/kc" config use-context one >/dev/null
grep -v '^kubeconfig' "$AIRLOCK_HOME/kubernetes.hcl" > "$T/k.hcl"; { echo "kubeconfig = \"$T/kc\""; cat "$T/k.hcl"; } > "$AIRLOCK_HOME/kubernetes.hcl"
# the other cluster's sandbox of the same name, from another home
H2=$T/home2; mkdir -p "$H2"; cp "$h2" "$H2/kubernetes.hcl"
trap 'AIRLOCK_HOME=$H2 timeout 120 airlock rm --force "$N" >/dev/null 2>&1; AIRLOCK_HOME=$H2 timeout 30 airlock bridge -stop >/dev/null 2>&1; kc delete pod,pvc,secret,networkpolicy -l "airlock.dev/sandbox=$N" --wait=false >/dev/null 2>&1; cleanup' EXIT
write_sandbox "$N"; git add -A; git commit -qm i >/dev/null
AIRLOCK_HOME=$H2 timeout 200 airlock up --yes >/dev/null 2>&1 || setup_error "up on the second cluster"
up_sandbox "$N"
kubectl --kubeconfig "$T/kc" config use-context two >/dev/null
timeout 30 airlock bridge -stop >/dev/null 2>&1
timeout 120 airlock rm --force "$N" >/dev/null 2>&1; SBS=""
left1=$(kc get pod,pvc,secret,networkpolicy -l "airlock.dev/sandbox=$N" -o name | tr '\n' ' ')
left2=$(kubectl --kubeconfig "$KC2" -n "$NS" get pod,pvc,secret -l "airlock.dev/sandbox=$N" -o name | wc -l)
echo "first cluster after rm: ${left1:-nothing}; second cluster: $left2 of 3 objects left"
AIRLOCK_HOME=$H2 timeout 120 airlock rm --force "$N" >/dev/null 2>&1; AIRLOCK_HOME=$H2 timeout 30 airlock bridge -stop >/dev/null 2>&1
kc delete pod,pvc,secret,networkpolicy -l "airlock.dev/sandbox=$N" --wait=false >/dev/null 2>&1
bad=0; [ -n "$left1" ] && bad=1; [ "$left2" -lt 3 ] && bad=1
result $bad
