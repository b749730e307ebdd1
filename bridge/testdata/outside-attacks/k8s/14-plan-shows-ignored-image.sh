#!/bin/bash
# Needs no cluster. The README: "sandbox.hcl can only name the backend;
# everything else is in kubernetes.hcl". A checked-in sandbox.hcl says
# image = "evil.example/miner:1" and pids = 100000 (neither used by this backend: the pod
# runs kubernetes.hcl's image, pids come from the node). validate takes both
# and the plan's first line shows "image evil.example/miner:1" and "100000
# processes" next to the cluster line naming the real image. Got through
# when validate accepts `image` for kubernetes and the plan shows it as the
# sandbox's image.
. "$(dirname "$0")/lib.sh"
cat > "$T/kc" <<'Y'
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
Y
printf 'kubeconfig = "%s"\nnamespace = "airlock"\nimage = "airlock.local/airlock:dev"\n' "$T/kc" > "$AIRLOCK_HOME/kubernetes.hcl"
cat > sandbox.hcl <<'H'
sandbox "k" {
  backend = "kubernetes"
  image   = "evil.example/miner:1"
  pids    = 100000
}
H
airlock validate >/dev/null 2>&1 || defended
airlock plan > "$T/plan" 2>&1
sed -n 4,5p "$T/plan"
grep -q 'image evil.example/miner:1' "$T/plan" && gotthrough || defended
