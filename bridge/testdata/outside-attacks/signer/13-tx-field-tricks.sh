#!/bin/bash
# eth_signTransaction field tricks against chain_ids / to / max_value (approval=never):
# pre-EIP-155, other/huge/leading-zero chain ids, non-canonical value encodings, data+input disagreement,
# contract creation, mixed fee fields, typed 3/4, from= another address. The signed bytes of accepted ones are checked with ethers.
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
      operations = ["eth_signTransaction"]
      chain_ids = [11155111]
      to = ["0x000000000000000000000000000000000000dEaD"]
      max_value = "0.1 ether"
      rate = "1000/minute"
      approval = "never"
    }
  }
}'
python3 - "$ADDR" > $PROJ/cases <<'PY'
import json,sys
F=sys.argv[1]; D="0x000000000000000000000000000000000000dEaD"
base={"from":F,"chainId":"0xaa36a7","nonce":"0x1","to":D,"value":"0x1","gas":"0x5208","maxFeePerGas":"0x6fc23ac00","maxPriorityFeePerGas":"0x3b9aca00","type":"0x2"}
def tx(**kw):
    t=dict(base)
    for k,v in kw.items():
        k=k.replace("from_","from")
        if v is None: t.pop(k,None)
        else: t[k]=v
    return {"jsonrpc":"2.0","id":1,"method":"eth_signTransaction","params":[t]}
C=[("control_ok","sign",tx()),
 ("legacy_no_chainid","refuse",tx(type="0x0",chainId=None,maxFeePerGas=None,maxPriorityFeePerGas=None,gasPrice="0x1")),
 ("chain_mainnet","refuse",tx(chainId="0x1")),
 ("chain_2^128+sepolia","refuse",tx(chainId="0x100000000000000000000000000aa36a7")),
 ("chain_leading_zero","refuse",tx(chainId="0x00aa36a7")),
 ("value_100eth","refuse",tx(value="0x56bc75e2d63100000")),
 ("value_decimal_string","refuse",tx(value="100000000000000000000")),
 ("value_json_number","refuse",tx(value=1e20)),
 ("value_padded_hex","refuse",tx(value="0x"+"0"*40+"56bc75e2d63100000")),
 ("value_2^256+1","refuse",tx(value="0x1"+"0"*63+"1")),
 ("to_other","refuse",tx(to="0x1111111111111111111111111111111111111111")),
 ("to_no_0x","refuse",tx(to="000000000000000000000000000000000000dead")),
 ("to_21_bytes","refuse",tx(to="0x00000000000000000000000000000000000000dead")),
 ("contract_creation","refuse",tx(to=None,value="0x0",data="0x6080")),
 ("data_vs_input","refuse",tx(data="0x",input="0xa9059cbb")),
 ("gasPrice_plus_1559","refuse",tx(gasPrice="0x1")),
 ("type3_blob","refuse",tx(type="0x3")),
 ("type4_7702","refuse",tx(type="0x4",authorizationList=[])),
 ("from_other","refuse",tx(from_="0x1111111111111111111111111111111111111111")),
 ("dup_key_value","refuse","DUP"),
 ("case_key_Value","refuse",tx(Value="0x56bc75e2d63100000")),
]
for n,e,b in C:
    if b=="DUP":
        s=json.dumps(tx()); s=s.replace('"value": "0x1"','"value": "0x56bc75e2d63100000", "value": "0x1"')
        print(json.dumps({"name":n,"expect":e,"raw":s})); continue
    print(json.dumps({"name":n,"expect":e,"body":b}))
PY
run_cases $PROJ/cases
[ $CTRL_FAIL -gt 0 ] && setup_fail "control case was refused"
[ $BAD -gt 0 ] && result got || result def
