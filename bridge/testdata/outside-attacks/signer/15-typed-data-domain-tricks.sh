#!/bin/bash
# EIP-712 against chain_ids + to (verifyingContract allowlist), approval=never: domain fields present in the
# domain object but not in EIP712Domain (so not hashed), no EIP712Domain, wrong field types, duplicate fields,
# other verifyingContract, other chain, missing/extra message fields, unused types; accepted ones are checked with ethers.
. "$(dirname "$0")/lib.sh"
fresh
up 'sandbox "atk" {
  backend = "namespace"
  memory = "512MiB"
  workspace { mode = "mountless" }
  network { preset = "locked-down" }
  signer {
    key "k" { ref = "dep" }
    policy "p" {
      key = "k"
      operations = ["eth_signTypedData_v4"]
      chain_ids = [11155111]
      to = ["0x000000000000000000000000000000000000dEaD"]
      approval = "never"
    }
  }
}'
python3 - "$ADDR" > $PROJ/cases <<'PY'
import json,sys
F=sys.argv[1]; D="0x000000000000000000000000000000000000dEaD"
N={"name":"name","type":"string"}; C={"name":"chainId","type":"uint256"}; V={"name":"verifyingContract","type":"address"}
def td(dt,dom,mt=None,msg=None,extra_types=None):
    t={"types":{"EIP712Domain":dt,"Mail":mt or [{"name":"contents","type":"string"}]},"primaryType":"Mail","domain":dom,"message":msg or {"contents":"hi"}}
    if dt is None: del t["types"]["EIP712Domain"]
    if extra_types: t["types"].update(extra_types)
    return {"jsonrpc":"2.0","id":1,"method":"eth_signTypedData_v4","params":[F,json.dumps(t)]}
ok={"name":"x","chainId":11155111,"verifyingContract":D}
C_=[("control","sign",td([N,C,V],ok)),
 ("chainId_not_hashed","refuse",td([N,V],ok)),
 ("vc_not_hashed","refuse",td([N,C],ok)),
 ("no_EIP712Domain","refuse",td(None,ok)),
 ("chainId_uint64","refuse",td([N,{"name":"chainId","type":"uint64"},V],ok)),
 ("chainId_string","refuse",td([N,{"name":"chainId","type":"string"},V],dict(ok,chainId="11155111"))),
 ("vc_bytes20","refuse",td([N,C,{"name":"verifyingContract","type":"bytes20"}],ok)),
 ("dup_domain_field","refuse",td([N,C,V,C],ok)),
 ("vc_other","refuse",td([N,C,V],dict(ok,verifyingContract="0x1111111111111111111111111111111111111111"))),
 ("chain_mainnet","refuse",td([N,C,V],dict(ok,chainId=1))),
 ("chain_hex_mainnet","refuse",td([N,C,V],dict(ok,chainId="0x1"))),
 ("missing_msg_field","refuse",td([N,C,V],ok,[{"name":"contents","type":"string"},{"name":"amount","type":"uint256"}],{"contents":"hi"})),
 ("extra_msg_field_ignored","sign",td([N,C,V],ok,None,{"contents":"hi","amount":"1"})),
 ("unused_type_ignored","sign",td([N,C,V],ok,extra_types={"Transfer":[{"name":"amount","type":"uint256"}]})),
]
for n,e,b in C_: print(json.dumps({"name":n,"expect":e,"body":b}))
PY
run_cases $PROJ/cases | tee $PROJ/log; BAD=$(grep -c "expect refuse got sign" $PROJ/log); CTRL_FAIL=$(grep -c "expect sign   got refuse" $PROJ/log)
# extra message fields / unused types must hash exactly like the control (ignored consistently, ethers-compatible)
[ $(grep -E "^  (control|extra_msg_field_ignored|unused_type_ignored) " $PROJ/log | grep -o "\"result\":\"0x[0-9a-f]*" | sort -u | wc -l) -eq 1 ] || BAD=$((BAD+1))
[ $CTRL_FAIL -gt 0 ] && setup_fail "control refused"
[ $BAD -gt 0 ] && result got || result def
