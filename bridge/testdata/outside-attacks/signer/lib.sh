# shared helpers for attack scripts (sourced, not run)
# AIRLOCK_BIN: the directory holding airlock and airlock-agent (the Go test
# sets it). JS: a directory with ethers installed (default the repo's
# internal/signer/testdata/js, filled by `make testdeps`). Every run gets its
# own temp dir (home and project), removed at exit, so runs can overlap.
B=${AIRLOCK_BIN:?set AIRLOCK_BIN to the directory holding airlock and airlock-agent}
RPC_TIMEOUT= # per call: RPC_TIMEOUT=N rpc …; never the caller's environment (T was read as a curl timeout)
export PATH="$B:$PATH"
unset AIRLOCK_BIN # airlock itself reads AIRLOCK_BIN as its own binary's path
ATK_NAME=${ATK_NAME:-$(basename "$0" .sh)}
ATK_TMP=$(mktemp -d "${TMPDIR:-/tmp}/atk-signer.XXXXXX")
CLEANED=no
trap '[ $CLEANED = yes ] || cleanup; rm -rf "$ATK_TMP"' EXIT
export AIRLOCK_HOME=$ATK_TMP/home
export AIRLOCK_PASSPHRASE=atk-pass-123
PROJ=$ATK_TMP/proj
SB=${SB:-atk}
JS=${JS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../../internal/signer/testdata/js" && pwd)}
export JS_DIR=${JS_DIR:-$JS/node_modules/ethers}
if grep -qE '[$]JS\b|JS_DIR' "$0" && [ ! -d "$JS/node_modules/ethers" ]; then # only the scripts that run node need it
  echo "setup error: no ethers in $JS/node_modules (run make testdeps)" >&2; echo "RESULT: setup error"; CLEANED=yes; exit 2
fi
ADDR=""
setup_fail() { echo "setup error: $*" >&2; cleanup; echo "RESULT: setup error"; exit 2; }
cleanup() {
  for s in $(airlock ls --json 2>/dev/null | python3 -c 'import json,sys
try:
  d=json.load(sys.stdin)
  for x in (d if isinstance(d,list) else d.get("sandboxes",[])): print(x.get("name") or x.get("Name"))
except Exception: pass' 2>/dev/null); do airlock rm --force "$s" >/dev/null 2>&1; done
  airlock bridge -stop >/dev/null 2>&1
  sleep 0.3
  CLEANED=yes
}
# start fresh: $1 = sandbox.hcl body (the signer block etc.)
fresh() {
  [ -d "$AIRLOCK_HOME" ] && { airlock bridge -stop >/dev/null 2>&1; cleanup; CLEANED=no; }
  rm -rf "$AIRLOCK_HOME" "$PROJ"; mkdir -p "$PROJ"
  airlock key new dep --type secp256k1 >/dev/null || setup_fail "key new"
  airlock key new ed --type ed25519 >/dev/null || setup_fail "key new ed"
  airlock key new hm --type hmac >/dev/null || setup_fail "key new hm"
  ADDR=$(airlock key ls | awk '$1=="dep"{print $3}')
}
up() { # $1 = file content
  printf '%s\n' "$1" > "$PROJ/sandbox.hcl"
  (cd "$PROJ" && airlock up --yes ${2:+--name $2} >/dev/null 2>"$PROJ/up.err") || setup_fail "up: $(cat $PROJ/up.err)"
}
# rpc SANDBOX < body  -> prints response
rpc() { airlock exec "${1:-$SB}" -- sh -c "curl -s -m ${RPC_TIMEOUT:-20} -XPOST -H content-type:application/json --data-binary @- \$AIRLOCK_SIGNER"; }
result() { cleanup; if [ "$1" = got ]; then echo "RESULT: got through"; exit 1; else echo "RESULT: defended"; exit 0; fi; }
# run_cases FILE: FILE has one JSON line per case: {"name":..,"expect":"refuse"|"sign","body":{...}}
# prints each outcome; sets BAD=number of cases where a "refuse" case was signed (or a "sign" control failed -> CTRL_FAIL)
run_cases() {
  BAD=0; CTRL_FAIL=0
  while IFS= read -r line; do
    name=$(echo "$line" | python3 -c 'import json,sys;print(json.load(sys.stdin)["name"])')
    exp=$(echo "$line" | python3 -c 'import json,sys;print(json.load(sys.stdin)["expect"])')
    R=$(echo "$line" | python3 -c 'import json,sys;d=json.load(sys.stdin);print(d["raw"] if "raw" in d else json.dumps(d["body"]))' | rpc ${RC_SB:-atk})
    if echo "$R" | grep -q '"result"'; then got=sign; else got=refuse; fi
    printf '  %-28s expect %-6s got %-6s %s\n' "$name" "$exp" "$got" "$(echo "$R" | head -c 110)"
    [ "$exp" = refuse ] && [ "$got" = sign ] && BAD=$((BAD+1))
    [ "$exp" = sign ] && [ "$got" = refuse ] && CTRL_FAIL=$((CTRL_FAIL+1))
  done < "$1"
}
