#!/bin/bash
# Every decision must be in the audit log (README: allowed, refused by policy, validation, you, timeout, failed).
# Send one request of each kind and count new audit entries per request; also check a JWT entry records claim values.
. "$(dirname "$0")/lib.sh"
fresh
up 'sandbox "atk" {
  backend = "namespace"
  memory = "512MiB"
  workspace { mode = "mountless" }
  network { preset = "locked-down" }
  signer {
    key "k" { ref = "dep" }
    key "j" { ref = "ed" }
    policy "p" {
      key = "k"
      operations = ["personal_sign", "eth_signTransaction"]
      chain_ids = [11155111]
      to = ["0x000000000000000000000000000000000000dEaD"]
      max_value = "1 gwei"
      approval = "never"
    }
    policy "jwt" {
      key = "j"
      operations = ["jwt"]
      issuer = "ci"
      audience = ["a"]
      claims = ["scope"]
      approval = "never"
    }
  }
}'
LOG=$AIRLOCK_HOME/audit/signer.jsonl
TX='{"from":"'$ADDR'","type":"0x2","chainId":"0xaa36a7","nonce":"0x0","to":"0x000000000000000000000000000000000000dEaD","value":"0x1","gas":"0x5208","maxFeePerGas":"0x1","maxPriorityFeePerGas":"0x1"'
MISS=0
probe() { local name=$1 body=$2; local b=$(cat $LOG 2>/dev/null | wc -l); R=$(printf '%s' "$body" | rpc atk); sleep 0.2; local a=$(cat $LOG 2>/dev/null | wc -l)
  printf '  %-24s new audit entries: %d   %s\n' "$name" $((a-b)) "$(echo "$R" | head -c 90)"; [ $((a-b)) -ge 1 ] || MISS=$((MISS+1)); }
probe allowed              '{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x6869","'$ADDR'"]}'
probe policy_to            '{"jsonrpc":"2.0","id":1,"method":"eth_signTransaction","params":['"${TX/dEaD/1111}"'}]}'
probe budget_value         '{"jsonrpc":"2.0","id":1,"method":"eth_signTransaction","params":['"${TX/0x1\"/0xffffffffff\"}"'}]}'
probe invalid_params       '{"jsonrpc":"2.0","id":1,"method":"eth_signTransaction","params":[{"from":"'$ADDR'","value":"zz"}]}'
probe duplicate_key        '{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x6869","'$ADDR'"],"params":["0x00","'$ADDR'"]}'
probe malformed_json       '{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x6869",'
probe eth_sign_refused     '{"jsonrpc":"2.0","id":1,"method":"eth_sign","params":["'$ADDR'","0x'$(printf '%064x' 1)'"]}'
probe eth_sendTransaction  '{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":['"$TX"'}]}'
probe unknown_account      '{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x6869","0x1111111111111111111111111111111111111111"]}'
probe jwt_allowed          '{"jsonrpc":"2.0","id":1,"method":"airlock_signJWT","params":[{"key":"j","audience":"a","ttl":60,"claims":{"scope":"admin:all"}}]}'
echo "  last JWT audit entry: $(grep airlock_signJWT $LOG | tail -1 | grep -o '"decoded":{[^}]*}')"
JWTVAL=yes; grep airlock_signJWT $LOG | tail -1 | grep -q 'admin:all' || JWTVAL=no
echo "  signing-method requests with no audit entry: $MISS ; JWT claim values in audit: $JWTVAL"
# count as got through only if a signature-bearing or policy/validation decision on a signing method is missing,
# or an issued token's claim values are not recorded
[ $MISS -gt 0 ] || [ $JWTVAL = no ] && result got || result def
