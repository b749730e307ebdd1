# shared helpers for the docker/microVM attack scripts
B=${AIRLOCK_BIN:?set AIRLOCK_BIN to the directory holding airlock}; export PATH=$B:/usr/local/go/bin:$PATH; unset AIRLOCK_BIN
ATK_BASE=$(mktemp -d /tmp/atkvm.XXXXXX)
export AIRLOCK_HOME=$ATK_BASE/home
mkdir -p "$AIRLOCK_HOME/cache"
ln -s /root/.cache/airlock-microvm-test/images "$AIRLOCK_HOME/images"
ln -s /root/.cache/airlock-microvm-test/cache/kernel "$AIRLOCK_HOME/cache/kernel"
SBX_NAMES=()
HOST_PIDS=()
atk_cleanup() {
  for n in "${SBX_NAMES[@]}"; do airlock rm --force "$n" >/dev/null 2>&1; done
  airlock bridge -stop >/dev/null 2>&1
  for p in "${HOST_PIDS[@]}"; do kill "$p" 2>/dev/null; done
}
trap atk_cleanup EXIT
log() { echo "[$(date +%T)] $*" >&2; }
setup_error() { echo "setup: $*" >&2; echo "RESULT: setup error"; exit 2; }
succeeded() { echo "RESULT: attack SUCCEEDED"; exit 1; }
defended() { echo "RESULT: defended"; exit 0; }

# write_hcl FILE NAME WSPATH MODE [extra lines for sandbox block] [extra workspace lines]
write_hcl() {
  local f=$1 name=$2 ws=$3 mode=$4 extra=${5:-} wsextra=${6:-}
  cat >"$f" <<H
sandbox "$name" {
  backend = "microvm"
  image   = "test-docker"
  memory  = "1GiB"
  docker  = true
  $extra
  workspace {
    path = "$ws"
    mode = "$mode"
    $wsextra
  }
}
H
}
# up_sbx FILE NAME
up_sbx() {
  SBX_NAMES+=("$2")
  airlock up -f "$1" --yes >"$ATK_BASE/up-$2.log" 2>&1 || { cat "$ATK_BASE/up-$2.log" >&2; return 1; }
}
ax() { local n=$1; shift; airlock exec "$n" -- "$@"; }
wait_docker() {
  ax "$1" bash -c 'for i in $(seq 240); do docker info >/dev/null 2>&1 && exit 0; sleep 1; done; exit 1'
}
# build a rootfs image "root" from the guest's own /bin etc. (for containers with bash+coreutils)
mk_root_image() {
  ax "$1" bash -c 'cd / && sudo tar -c bin sbin lib lib64 usr/bin usr/sbin usr/lib usr/lib64 etc 2>/dev/null | docker import - atkroot >/dev/null && docker image inspect atkroot >/dev/null'
}

ATK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/tool" && pwd); ATK_BIN=$ATK_BASE/atk
ensure_tool() {
  [ -x "$ATK_BIN" ] || (cd "$ATK_DIR" && CGO_ENABLED=0 /usr/local/go/bin/go build -o "$ATK_BIN" .) || return 1
}
# push_tool NAME: copy the static multitool into the guest as /tmp/atk
push_tool() {
  ax "$1" bash -c 'cat > /tmp/atk && chmod +x /tmp/atk && /tmp/atk ls / >/dev/null' < "$ATK_BIN"
}
# build_atk_image NAME: FROM scratch image "atk" (entrypoint /atk) inside the guest engine
build_atk_image() {
  ax "$1" bash -c 'set -e; mkdir -p /tmp/ctx; cp /tmp/atk /tmp/ctx/atk; printf "FROM scratch\nCOPY atk /atk\nENTRYPOINT [\"/atk\"]\n" > /tmp/ctx/Dockerfile; docker build -q -t atk /tmp/ctx >/dev/null; docker run --rm atk ls / | grep -q atk'
}
# host_listener PORT LOGFILE: a TCP listener on the host's 127.0.0.1 that logs every connection
host_listener() {
  "$ATK_BIN" listen "127.0.0.1:$1" "$2" & HOST_PIDS+=($!)
  sleep 0.5
  "$ATK_BIN" tcp "127.0.0.1:$1" 'selftest\n' | grep -q 'OK' && grep -q selftest "$2"
}
