# Shared setup for the second kubernetes-backend outside round (sourced, not
# run): the first round's harness (../k8s/lib.sh: B, T, AIRLOCK_HOME, P, N,
# need_cluster, kc, write_sandbox, up_sandbox, inside, bridge_pid, exit 0 =
# defended, 1 = got through, 2 = setup error), plus:
#   AIRLOCK_K8S_IMAGE  overrides kubernetes.hcl's image (the shared test
#                      cluster had airlock.local/airlock-test:1 imported, not
#                      the image its kubernetes.hcl named)
#   rss_kib PID        a process's resident set in KiB
#   timed CMD...       runs CMD (60 s cap), prints "rc SECONDS"
. "$(dirname "${BASH_SOURCE[0]}")/../k8s/lib.sh"
need_cluster2() {
  need_cluster
  if [ -n "${AIRLOCK_K8S_IMAGE:-}" ]; then
    sed -i "s#^image *=.*#image = \"$AIRLOCK_K8S_IMAGE\"#" "$AIRLOCK_HOME/kubernetes.hcl"
  fi
}
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
timed() {
  local s e rc
  s=$(date +%s%N); timeout 60 "$@" >/dev/null 2>&1; rc=$?; e=$(date +%s%N)
  echo "$rc $(( (e - s) / 1000000 ))ms"
}
# second_sandbox NAME [EXTRA-HCL]: another sandbox of this home, from its own repo.
second_sandbox() {
  local d=$T/proj-$1
  mkdir -p "$d" && (cd "$d" && git init -q . && cat > sandbox.hcl <<H
sandbox "$1" {
  backend = "kubernetes"
  network { preset = "locked-down" }
${2:-}
}
H
  git add -A && git commit -qm init) >/dev/null 2>&1 || setup_error "repo for $1"
  SBS="$SBS $1"
  (cd "$d" && timeout 300 airlock up --yes >"$T/up-$1.log" 2>&1) || { cat "$T/up-$1.log" >&2; setup_error "up $1"; }
}
