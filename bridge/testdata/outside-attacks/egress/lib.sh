# Shared setup for the egress outside-attack scripts (sourced, not run): a
# fourth outside round on the network-approval path and credential injection,
# written against the README and the CLI. It gives a private AIRLOCK_HOME, a
# recording echo server on loopback (server.py: HTTP and HTTPS with its own
# self-signed cert naming svc.test, alias.test, api.svc.test and 127.0.0.1),
# host settings that map those names to 127.0.0.1 and trust the cert, and a
# namespace sandbox with client.py at /tmp/c.py.
# Exit 0 = defended, 1 = got through, 2 = setup error.
set -u
B=${AIRLOCK_BIN:?set AIRLOCK_BIN to the directory holding airlock and airlock-agent}
export PATH="$B:$PATH"
unset AIRLOCK_BIN # airlock itself reads AIRLOCK_BIN as its own binary's path
LIBDIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
T=$(mktemp -d /tmp/atk-egress.XXXXXX) || exit 2
chmod 755 "$T"
export AIRLOCK_HOME="$T/home"
mkdir -p "$AIRLOCK_HOME" "$T/proj" "$T/srv"
REC="$T/srv/rec.jsonl"; : > "$REC"
SB=""; SRVPID=""
cleanup() {
  set +e
  for id in $(pending_ids 2>/dev/null); do timeout 10 airlock deny "$id" >/dev/null 2>&1; done
  [ -n "$SB" ] && timeout 60 airlock rm --force "$SB" >/dev/null 2>&1
  [ -n "${SB2:-}" ] && timeout 60 airlock rm --force "$SB2" >/dev/null 2>&1
  timeout 30 airlock bridge -stop >/dev/null 2>&1
  [ -n "$SRVPID" ] && kill "$SRVPID" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
setup_error() { echo "setup error: $*" >&2; echo "RESULT: setup error"; exit 2; }
defended() { echo "RESULT: defended"; exit 0; }
gotthrough() { echo "RESULT: got through"; exit 1; }
result() { if [ "$1" -gt 0 ]; then gotthrough; else defended; fi; }

# two free loopback ports for the server (HTTP, HTTPS)
read -r HP SP < <(python3 -c 'import socket
a=[socket.socket() for _ in range(2)]
[s.bind(("127.0.0.1",0)) for s in a]
print(*[s.getsockname()[1] for s in a])')
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/srv/key.pem" -out "$T/srv/cert.pem" -days 2 \
  -subj /CN=svc.test -addext "subjectAltName=DNS:svc.test,DNS:alias.test,DNS:api.svc.test,IP:127.0.0.1" \
  >/dev/null 2>&1 || setup_error "openssl req"
cp "$T/srv/cert.pem" "$AIRLOCK_HOME/srv.pem"
python3 "$LIBDIR/server.py" "$REC" "$T/srv/cert.pem" "$T/srv/key.pem" "$HP" "$SP" >"$T/srv/log" 2>&1 &
SRVPID=$!
for _ in $(seq 50); do python3 -c "import socket;socket.create_connection(('127.0.0.1',$SP),1)" 2>/dev/null && break; sleep 0.1; done

# host_settings 'approve = [...]' [more lines]: $AIRLOCK_HOME/egress.hcl
host_settings() {
  cat > "$AIRLOCK_HOME/egress.hcl" <<H
allow = ["127.0.0.1"]
hosts = { "svc.test" = "127.0.0.1", "alias.test" = "127.0.0.1", "api.svc.test" = "127.0.0.1" }
roots = "srv.pem"
approve_timeout = "2m"
$*
H
}
# secret NAME VALUE
secret() { printf '%s' "$2" | airlock secret set "$1" >"$T/secret.out" 2>&1 || { cat "$T/secret.out" >&2; setup_error "secret set $1"; }; }
# up [extra lines in the sandbox block] -- sandbox "atk"
up() {
  local name=${SBNAME:-atk}
  ( cd "$T/proj" && git init -q . 2>/dev/null )
  cat > "$T/proj/$name.hcl" <<H
sandbox "$name" {
  backend = "namespace"
  memory  = "512MiB"
  workspace { mode = "mountless" }
  network {
    preset = "locked-down"
    allow  = ["svc.test", "alias.test", "api.svc.test"${NETALLOW:+, $NETALLOW}]
    ${NETEXTRA:-}
  }
  ${1:-}
}
H
  ( cd "$T/proj" && timeout 120 airlock up -f "$T/proj/$name.hcl" --yes ) >"$T/up-$name.out" 2>&1 || { cat "$T/up-$name.out" >&2; setup_error "airlock up $name"; }
  timeout 30 airlock exec -i "$name" -- sh -c 'cat > /tmp/c.py' < "$LIBDIR/client.py" || setup_error "copy client"
  if [ "$name" = atk ]; then SB=atk; else SB2=$name; fi
}
ax() { timeout "${AXT:-60}" airlock exec "${IN:-atk}" -- "$@"; }
# pyin 'code' [args]: python inside with client.py loaded (PX proxy, tls(), tunnel(), plain(), status())
pyin() { local code=$1; shift; ax python3 -c "exec(open('/tmp/c.py').read())
$code" "$@"; }
pending_ids() { airlock approvals --json 2>/dev/null | python3 -c 'import json,sys
for x in json.load(sys.stdin) or []:
  if x.get("operation") == "network": print(x["id"])'; }
pending_count() { pending_ids | wc -l; }
deny_all() { for id in $(pending_ids); do airlock deny "$id" >/dev/null 2>&1; done; }
# wait_pending N [seconds]: until N network approvals are waiting
wait_pending() { local i; for i in $(seq $((${2:-15} * 5))); do [ "$(pending_count)" -ge "$1" ] && return 0; sleep 0.2; done; return 1; }
# reached PATTERN: how many requests whose target matches PATTERN reached the server
reached() { python3 - "$REC" "$1" <<'P'
import json,re,sys
n=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if "target" in o and re.search(sys.argv[2], o["target"]): n+=1
print(n)
P
}
