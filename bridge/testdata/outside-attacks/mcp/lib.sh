# shared helpers for attack scripts
set -u
ATTACK_BIN="${ATTACK_BIN:-${AIRLOCK_BIN:-/work/attack-mcp/bin}}" # the Go test passes AIRLOCK_BIN
unset AIRLOCK_BIN
export PATH="$ATTACK_BIN:$PATH"
LIBDIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p /tmp/atk-mcp
T="$(mktemp -d /tmp/atk-mcp/t.XXXXXX)" || exit 2
chmod 755 "$T"
export AIRLOCK_HOME="$T/ah" HOME="$T/home"
mkdir -p "$AIRLOCK_HOME" "$HOME" "$T/repo" "$T/srv"
chmod 755 "$T/srv"
REC="$T/srv/rec.jsonl"
cp "$LIBDIR/mcpserver.py" "$T/srv/server.py"; chmod 755 "$T/srv/server.py"
SB=""
cleanup() {
  set +e
  [ -n "$SB" ] && timeout 30 airlock rm --force "$SB" >/dev/null 2>&1
  timeout 20 airlock bridge -stop >/dev/null 2>&1
  # kill only server processes we started (identified by our unique path)
  for p in $(pgrep -f "$T/srv/" 2>/dev/null); do kill "$p" 2>/dev/null; done
  rm -rf "$T" 2>/dev/null
}
trap cleanup EXIT
die() { echo "setup error: $*" >&2; echo "RESULT: setup-error"; exit 2; }
defended() { echo "RESULT: defended"; exit 0; }
gotthrough() { echo "RESULT: got through"; exit 1; }
# write_mcp_hcl [extra lines for server block]  -- default server "atk"
write_mcp_hcl() {
  cat > "$AIRLOCK_HOME/mcp.hcl" <<H
server "atk" {
  command = ["/usr/bin/python3", "$T/srv/server.py"]
  env = { REC = "$REC", SERVER_SECRET = "s3cr3t-server-env" }
  ${1:-}
}
H
}
# write_sandbox body-extra
write_sandbox() {
  cat > "$T/repo/sandbox.hcl" <<H
sandbox "${SBNAME:-atk}" {
  backend = "namespace"
  memory = "512MiB"
  workspace {
    mode = "mountless"
  }
  $1
}
H
}
up() {
  ( cd "$T/repo" && git init -q . 2>/dev/null; timeout 60 airlock up -f "$T/repo/sandbox.hcl" --yes ${1:-} ) > "$T/up.out" 2>&1 || { cat "$T/up.out" >&2; return 1; }
  SB="${SBNAME:-atk}"
}
ax() { timeout 30 airlock exec "$SB" -- "$@"; }
# rpc inside: mcpcall NAME JSON [session-id]  -> prints headers+body
py_in() { ax /usr/bin/python3 -c "$1"; }
rec_has() { grep -q -- "$1" "$REC" 2>/dev/null; }
CLIENT="$(cat "$LIBDIR/client.py")"
# rec_calls: print tool names that reached the server via tools/call (also inside batches)
rec_calls() {
  /usr/bin/python3 - "$REC" <<'P'
import json,sys
try: lines=open(sys.argv[1]).read().splitlines()
except Exception: lines=[]
for l in lines:
    o=json.loads(l)
    m=o.get("msg")
    if m is None: continue
    for x in (m if isinstance(m,list) else [m]):
        if isinstance(x,dict) and x.get("method")=="tools/call":
            print(repr((x.get("params") or {}).get("name")))
P
}
rec_methods() {
  /usr/bin/python3 - "$REC" <<'P'
import json,sys
try: lines=open(sys.argv[1]).read().splitlines()
except Exception: lines=[]
for l in lines:
    o=json.loads(l); m=o.get("msg")
    if m is None: continue
    for x in (m if isinstance(m,list) else [m]):
        if isinstance(x,dict) and "method" in x: print(x["method"])
P
}
