#!/bin/bash
# JWT policy lets the agent set claims sub and scope, approval=always. The agent asks for
# sub=readonly-bot, scope="admin:all delete:*". Does the approval prompt show the scope value?
. "$(dirname "$0")/lib.sh"
fresh
up 'sandbox "atk" {
  backend = "namespace"
  memory = "512MiB"
  workspace { mode = "mountless" }
  network { preset = "locked-down" }
  signer {
    key "j" { ref = "ed" }
    policy "jwt" {
      key = "j"
      operations = ["jwt"]
      issuer = "ci"
      audience = ["deploy-api"]
      claims = ["sub", "scope"]
      max_lifetime = "15m"
      approval = "always"
    }
  }
}'
B='{"jsonrpc":"2.0","id":1,"method":"airlock_signJWT","params":[{"key":"j","audience":"deploy-api","ttl":900,"claims":{"sub":"readonly-bot","scope":"admin:all delete:*"}}]}'
(echo "$B" | RPC_TIMEOUT=10 rpc atk > $PROJ/out.json) &
for i in $(seq 1 40); do J=$(airlock approvals --json 2>/dev/null); echo "$J" | grep -q '"id"' && break; sleep 0.25; done
TXT=$(airlock approvals); echo "--- human sees (text):"; echo "$TXT"; echo "--- human sees (--json details):"; echo "$J" | python3 -c 'import json,sys;print(json.dumps(json.load(sys.stdin)[0]["details"]))'
SHOWN=no; echo "$TXT$J" | grep -q 'admin:all' && SHOWN=yes
ID=$(echo "$J" | python3 -c 'import json,sys;print(json.load(sys.stdin)[0]["id"])') || setup_fail "no approval"
airlock approve $ID >/dev/null; wait
TOK=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["result"]["jwt"])' $PROJ/out.json 2>/dev/null)
[ -n "$TOK" ] || { echo "not signed"; result def; }
echo "--- signed JWT payload:"; python3 -c 'import base64,sys;p=sys.argv[1].split(".")[1];print(base64.urlsafe_b64decode(p+"="*(-len(p)%4)).decode())' "$TOK"
echo "scope value shown to the human: $SHOWN"
[ $SHOWN = no ] && result got || result def
