#!/bin/bash
# JWT policy (issuer fixed, audience [svc-a], claims [sub, scope], max_lifetime 15m, approval=never):
# try to set iss/aud/exp/nbf via claims, other audience, audience list, ttl beyond max / negative / as string / float,
# claim names differing in case, extra header fields. Accepted tokens are decoded and checked.
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
      audience = ["svc-a"]
      claims = ["sub", "scope"]
      max_lifetime = "15m"
      approval = "never"
    }
  }
}'
python3 - > $PROJ/cases <<'PY'
import json
def j(p): return {"jsonrpc":"2.0","id":1,"method":"airlock_signJWT","params":[p]}
b={"key":"j","audience":"svc-a","ttl":60}
C=[("control","sign",j(dict(b,claims={"sub":"x"}))),
 ("iss_in_claims","refuse",j(dict(b,claims={"iss":"evil"}))),
 ("exp_in_claims","refuse",j(dict(b,claims={"exp":9999999999}))),
 ("aud_in_claims","refuse",j(dict(b,claims={"aud":"svc-b"}))),
 ("nbf_in_claims","refuse",j(dict(b,claims={"nbf":0}))),
 ("Iss_case","refuse",j(dict(b,claims={"Iss":"evil"}))),
 ("aud_other","refuse",j(dict(b,audience="svc-b"))),
 ("aud_list","refuse",j(dict(b,audience=["svc-a","svc-b"]))),
 ("ttl_over_max","refuse",j(dict(b,ttl=901))),
 ("ttl_negative","refuse",j(dict(b,ttl=-1))),
 ("ttl_string","refuse",j(dict(b,ttl="10h"))),
 ("ttl_float","refuse",j(dict(b,ttl=1e9))),
 ("header_alg_none","refuse",j(dict(b,header={"alg":"none"}))),
 ("unlisted_claim","refuse",j(dict(b,claims={"role":"admin"}))),
]
for n,e,x in C: print(json.dumps({"name":n,"expect":e,"body":x}))
print(json.dumps({"name":"dup_claim_key","expect":"refuse","raw":'{"jsonrpc":"2.0","id":1,"method":"airlock_signJWT","params":[{"key":"j","audience":"svc-a","ttl":60,"claims":{"sub":"x","sub":"admin"}}]}'}))
print(json.dumps({"name":"dup_ttl_key","expect":"refuse","raw":'{"jsonrpc":"2.0","id":1,"method":"airlock_signJWT","params":[{"key":"j","audience":"svc-a","ttl":60,"ttl":86400}]}'}))
PY
run_cases $PROJ/cases | tee $PROJ/log
BAD=$(grep -c "expect refuse got sign" $PROJ/log); grep -q "^  control .*got sign" $PROJ/log || setup_fail "control refused"
[ $BAD -gt 0 ] && result got || result def
