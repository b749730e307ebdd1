#!/bin/bash
# The key is used once (so the bridge has it decrypted), then the human runs `airlock key rm dep`
# (and, separately for the ed25519 key, replaces it with a new key of the same name). Afterwards the sandbox
# must get no signature from the removed key / the old key.
. "$(dirname "$0")/lib.sh"
fresh
up 'sandbox "atk" {
  backend = "namespace"
  memory = "512MiB"
  workspace { mode = "mountless" }
  network { preset = "locked-down" }
  signer {
    key "k" { ref = "dep" }
    key "e" { ref = "ed" }
    policy "p" {
      key = "k"
      operations = ["personal_sign"]
      approval = "never"
    }
    policy "s" {
      key = "e"
      operations = ["sign"]
      purposes = ["x"]
      approval = "never"
    }
  }
}'
PS='{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x6869","'$ADDR'"]}'
SG='{"jsonrpc":"2.0","id":1,"method":"airlock_sign","params":[{"key":"e","purpose":"x","text":"hi"}]}'
R1=$(echo "$PS" | rpc atk); echo "before rm: $(echo $R1 | head -c 90)"; echo "$R1" | grep -q result || setup_fail "control"
S1=$(echo "$SG" | rpc atk); PK1=$(echo "$S1" | python3 -c 'import json,sys;print(json.load(sys.stdin)["result"]["public_key"])')
airlock key rm dep >/dev/null 2>&1 || setup_fail "key rm"
airlock key rm ed >/dev/null 2>&1 && airlock key new ed --type ed25519 >/dev/null
R2=$(echo '{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x686921","'$ADDR'"]}' | rpc atk); echo "after key rm: $R2" | head -c 200; echo
S2=$(echo "$SG" | rpc atk); PK2=$(echo "$S2" | python3 -c 'import json,sys;print(json.load(sys.stdin)["result"]["public_key"])' 2>/dev/null)
echo "ed25519 before: $PK1  after replace: ${PK2:-$(echo $S2 | head -c 120)}"
GOT=no; echo "$R2" | grep -q '"result"' && GOT=yes; [ -n "$PK2" ] && [ "$PK2" = "$PK1" ] && GOT=yes
[ $GOT = yes ] && result got || result def
