#!/bin/bash
# sandbox.hcl names key ref "not-in-store" (missing). The store has other keys (dep, ed, hm) that the file
# does not name. The agent asks personal_sign with from = dep's address, airlock_sign / hmac / JWT naming the store's
# key names directly, and with key = the missing one. Nothing may be signed.
. "$(dirname "$0")/lib.sh"
fresh
up 'sandbox "atk" {
  backend = "namespace"
  memory = "512MiB"
  workspace { mode = "mountless" }
  network { preset = "locked-down" }
  signer {
    key "k" { ref = "not-in-store" }
    policy "p" {
      key = "k"
      operations = ["personal_sign", "eth_signTransaction", "sign", "hmac", "jwt"]
      purposes = ["x"]
      audience = ["a"]
      issuer = "i"
      approval = "never"
    }
  }
}'
python3 - "$ADDR" > $PROJ/cases <<'PY'
import json,sys
A=sys.argv[1]
def r(m,p): return {"jsonrpc":"2.0","id":1,"method":m,"params":p}
C=[("ps_from_store_key","refuse",r("personal_sign",["0x6869",A])),
 ("tx_from_store_key","refuse",r("eth_signTransaction",[{"from":A,"type":"0x2","chainId":"0x1","nonce":"0x0","to":"0x1111111111111111111111111111111111111111","value":"0x1","gas":"0x5208","maxFeePerGas":"0x1","maxPriorityFeePerGas":"0x1"}])),
 ("sign_key_k","refuse",r("airlock_sign",[{"key":"k","purpose":"x","text":"hi"}])),
 ("sign_key_ed","refuse",r("airlock_sign",[{"key":"ed","purpose":"x","text":"hi"}])),
 ("hmac_key_hm","refuse",r("airlock_hmac",[{"key":"hm","purpose":"x","text":"hi"}])),
 ("hmac_key_k","refuse",r("airlock_hmac",[{"key":"k","purpose":"x","text":"hi"}])),
 ("jwt_key_k","refuse",r("airlock_signJWT",[{"key":"k","audience":"a","ttl":60}])),
 ("jwt_key_ed","refuse",r("airlock_signJWT",[{"key":"ed","audience":"a","ttl":60}]))]
for n,e,b in C: print(json.dumps({"name":n,"expect":e,"body":b}))
PY
echo "eth_accounts: $(echo '{"jsonrpc":"2.0","id":1,"method":"eth_accounts"}' | rpc atk)"
run_cases $PROJ/cases | tee $PROJ/log
BAD=$(grep -c "expect refuse got sign" $PROJ/log)
[ $BAD -gt 0 ] && result got || result def
