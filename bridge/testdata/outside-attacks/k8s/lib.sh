# Shared setup for the kubernetes-backend outside-attack scripts (sourced,
# not run): a fifth outside round, on backend = "kubernetes", written
# against the README and the CLI first, the source second. Needs a running
# test cluster (scripts/k8s-cluster.sh start --image ...): AIRLOCK_K8S_HCL
# names the kubernetes.hcl it printed (default
# /tmp/airlock-k8s-cluster/kubernetes.hcl); the scripts that need no cluster
# say so and do not read it.
# Gives: B (airlock's dir, on PATH), T (temp dir, removed at exit), AIRLOCK_HOME
# under it, P (a git repo, the current dir), N (a sandbox name), KC (kubectl
# against the cluster, as the kubeconfig's user, if a kubectl exists).
# Exit 0 = defended, 1 = got through, 2 = setup error.
set -u
B=${AIRLOCK_BIN:?set AIRLOCK_BIN to the directory holding airlock and airlock-agent}
export PATH="$B:$PATH"
unset AIRLOCK_BIN # airlock itself reads AIRLOCK_BIN as its own binary's path
T=$(mktemp -d /tmp/atk-k8s.XXXXXX) || exit 2
chmod 755 "$T"
export AIRLOCK_HOME="$T/home"
mkdir -p "$AIRLOCK_HOME" "$T/proj"
P="$T/proj"; N=k$$; SBS=""
export GIT_AUTHOR_NAME=u GIT_AUTHOR_EMAIL=u@x GIT_COMMITTER_NAME=u GIT_COMMITTER_EMAIL=u@x
cleanup() {
  set +e
  cd /
  for s in $SBS; do timeout 90 airlock rm --force "$s" >/dev/null 2>&1; done
  timeout 30 airlock bridge -stop >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT
setup_error() { echo "setup error: $*" >&2; echo "RESULT: setup error"; exit 2; }
defended() { echo "RESULT: defended"; exit 0; }
gotthrough() { echo "RESULT: got through"; exit 1; }
result() { if [ "$1" -gt 0 ]; then gotthrough; else defended; fi; }
cd "$P" && git init -q . || setup_error "git init"

# need_cluster: copy the cluster's kubernetes.hcl into AIRLOCK_HOME.
need_cluster() {
  local h=${AIRLOCK_K8S_HCL:-/tmp/airlock-k8s-cluster/kubernetes.hcl}
  [ -r "$h" ] || setup_error "no kubernetes.hcl at $h (start the test cluster, or set AIRLOCK_K8S_HCL)"
  cp "$h" "$AIRLOCK_HOME/kubernetes.hcl"
  KUBECONFIG_FILE=$(sed -n 's/^kubeconfig *= *"\(.*\)"/\1/p' "$h")
  NS=$(sed -n 's/^namespace *= *"\(.*\)"/\1/p' "$h")
}

# kc ARGS...: kubectl as the kubeconfig's user, in the sandbox namespace.
kc() { kubectl --kubeconfig "$KUBECONFIG_FILE" -n "$NS" "$@"; }

# write_sandbox NAME [EXTRA-HCL]: a kubernetes sandbox.hcl here.
write_sandbox() {
  cat > sandbox.hcl <<H
sandbox "$1" {
  backend = "kubernetes"
  workspace { mode = "clone" }
  network { preset = "locked-down" }
${2:-}
}
H
}

# up_sandbox NAME: commit what is here and bring NAME up (exit 2 if it cannot).
up_sandbox() {
  SBS="$SBS $1"
  git add -A >/dev/null 2>&1; git commit -qm "init $1" >/dev/null 2>&1
  timeout 300 airlock up --yes >"$T/up.log" 2>&1 || { cat "$T/up.log" >&2; setup_error "up $1"; }
}

# inside NAME CMD: run CMD with sh in the sandbox's workspace.
inside() { local n=$1; shift; timeout 120 airlock exec "$n" -- sh -c "$*"; }

# bridge_pid: the pid of this script's bridge (the one with our AIRLOCK_HOME).
bridge_pid() {
  local p
  for p in $(pgrep -f "airlock bridge"); do
    tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "AIRLOCK_HOME=$AIRLOCK_HOME" && { echo "$p"; return 0; }
  done
  return 1
}
