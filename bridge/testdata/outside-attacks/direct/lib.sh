# Shared setup for the direct-mode outside-attack scripts (sourced, not run):
# a third outside round, written against the README and the CLI only. Each
# script sets SB (a name prefix) and optional HIDE/PROTECT/PRE_SETUP, then
# sources this; it gives WS (the user's folder), mkrepo, up, ax (run inside),
# defended/succeeded/setup_error.
B=${AIRLOCK_BIN:?set AIRLOCK_BIN to the directory holding airlock}; export PATH=$B:$PATH
unset AIRLOCK_BIN # airlock itself reads AIRLOCK_BIN as its own binary's path
TOP=$(mktemp -d /tmp/atkd.XXXXXX); export AIRLOCK_HOME=$TOP/home; mkdir -p "$AIRLOCK_HOME"
export GIT_CONFIG_NOSYSTEM=1
SB="${SB:-atk}x$$"
WS="$(mktemp -d $TOP/ws-XXXXXX)"
HIDE="${HIDE:-\"config/secret.txt\"}"
PROTECT="${PROTECT:-\"protected\"}"
setup_error() { echo "setup error: $*"; echo "RESULT: setup error"; exit 2; }
defended() { echo "RESULT: defended"; exit 0; }
succeeded() { echo "RESULT: attack SUCCEEDED"; exit 1; }
cleanup() { cd /; timeout 90 airlock rm --force "$SB" >/dev/null 2>&1; timeout 30 airlock bridge -stop >/dev/null 2>&1; rm -rf "$TOP"; }
trap cleanup EXIT
ax() { timeout "${AXT:-90}" airlock exec "$SB" -- "$@"; }   # run inside the sandbox
mkrepo() {
  cd "$WS" || setup_error "cd"
  git init -q -b main . || setup_error "git init"
  git config user.email u@example.com; git config user.name user
  cat > sandbox.hcl <<HCL
sandbox "$SB" {
  backend = "namespace"
  workspace {
    mode    = "direct"
    hide    = [$HIDE]
    protect = [$PROTECT]
  }
}
HCL
  mkdir -p src protected config
  echo 'console.log(1)' > src/index.js
  echo 'do not touch' > protected/keep.txt
  echo 'readme' > README.md
  [ -n "${PRE_SETUP:-}" ] && eval "$PRE_SETUP"
  git add -A >/dev/null && git commit -qm init || setup_error "commit"
}
up() {
  timeout 180 airlock up -f "$WS/sandbox.hcl" --yes >"$WS/../up-$SB.log" 2>&1 || { cat "$WS/../up-$SB.log"; setup_error "airlock up"; }
  ax true || setup_error "exec true"
}
