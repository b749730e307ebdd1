#!/bin/bash
# Bridge started without AIRLOCK_PASSPHRASE (key store locked). Agent asks for personal_sign (approval=always,
# human approves) and a JWT (approval=never); also `airlock key unlock` with a wrong passphrase. No signature may come out.
. "$(dirname "$0")/lib.sh"
fresh
HCL='sandbox "atk" {
  backend = "namespace"
  memory = "512MiB"
  workspace { mode = "mountless" }
  network { preset = "locked-down" }
  signer {
    key "k" { ref = "dep" }
    key "j" { ref = "ed" }
    policy "p" {
      key = "k"
      operations = ["personal_sign"]
      approval = "always"
    }
    policy "jwt" {
      key = "j"
      operations = ["jwt"]
      issuer = "atk"
      audience = ["svc"]
      claims = ["sub"]
      max_lifetime = "15m"
      approval = "never"
    }
  }
}'
printf '%s\n' "$HCL" > "$PROJ/sandbox.hcl"
(cd $PROJ && env -u AIRLOCK_PASSPHRASE airlock up --yes >/dev/null 2>$PROJ/up.err) || setup_fail "up $(cat $PROJ/up.err)"
GOT=no
(echo '{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x6869","'$ADDR'"]}' | RPC_TIMEOUT=15 rpc atk > $PROJ/ps.json) &
for i in $(seq 1 40); do J=$(env -u AIRLOCK_PASSPHRASE airlock approvals --json 2>/dev/null); echo "$J" | grep -q '"id"' && break; sleep 0.25; done
ID=$(echo "$J" | python3 -c 'import json,sys;print(json.load(sys.stdin)[0]["id"])' 2>/dev/null)
[ -n "$ID" ] && env -u AIRLOCK_PASSPHRASE airlock approve $ID >/dev/null
wait
echo "personal_sign: $(cat $PROJ/ps.json)"; grep -q '"result"' $PROJ/ps.json && GOT=yes
R=$(echo '{"jsonrpc":"2.0","id":1,"method":"airlock_signJWT","params":[{"key":"j","audience":"svc","ttl":60,"claims":{"sub":"x"}}]}' | rpc atk)
echo "jwt: $R"; echo "$R" | grep -q '"result"' && GOT=yes
echo wrong | AIRLOCK_PASSPHRASE=wrong-pass airlock key unlock </dev/null >/dev/null 2>&1; echo "unlock with wrong passphrase rc=$?"
R=$(echo '{"jsonrpc":"2.0","id":1,"method":"airlock_signJWT","params":[{"key":"j","audience":"svc","ttl":60,"claims":{"sub":"y"}}]}' | rpc atk)
echo "jwt after wrong unlock: $R"; echo "$R" | grep -q '"result"' && GOT=yes
[ $GOT = yes ] && result got || result def
