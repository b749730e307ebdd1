#!/bin/bash
# approval=always: agent asks for a 0.001 ETH transfer to the allowlisted address, but with
# gas=30,000,000 and maxFeePerGas=10,000 gwei (the tx may burn up to 300 ETH in fees).
# Does the approval prompt (text and --json) show gas limit / fee caps so the human can see that?
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
      max_value = "0.01 ether"
      approval = "always"
    }
  }
}'
BODY='{"jsonrpc":"2.0","id":1,"method":"eth_signTransaction","params":[{"from":"'$ADDR'","type":"0x2","chainId":"0xaa36a7","nonce":"0x5","to":"0x000000000000000000000000000000000000dEaD","value":"0x38d7ea4c68000","gas":"0x1c9c380","maxFeePerGas":"0x9184e72a000","maxPriorityFeePerGas":"0x9184e72a000"}]}'
OUT=$PROJ/out.json
(echo "$BODY" | RPC_TIMEOUT=30 rpc atk > $OUT) &
for i in $(seq 1 40); do J=$(airlock approvals --json 2>/dev/null); echo "$J" | grep -q '"id"' && break; sleep 0.25; done
TXT=$(airlock approvals)
echo "--- what the human sees:"; echo "$TXT"
ID=$(echo "$J" | python3 -c 'import json,sys;print(json.load(sys.stdin)[0]["id"])') || setup_fail "no approval"
# does the prompt mention gas/fee at all? (30000000 gas, 10000000000000 wei/gas, or a fee total of 300 ETH)
SHOWN=no
echo "$TXT" | grep -Eqiw 'gas|fee|fees|maxFeePerGas|gasLimit|30000000|300' && SHOWN=yes
echo "$J" | python3 -c '
import json,sys,re
def walk(x):
    if isinstance(x,dict):
        for k,v in x.items():
            if re.search("gas|fee",k,re.I): sys.exit(0)
            walk(v)
    elif isinstance(x,list):
        for v in x: walk(v)
    elif str(x) in ("30000000","0x1c9c380","10000000000000","0x9184e72a000"): sys.exit(0)
walk(json.load(sys.stdin)); sys.exit(1)' && SHOWN=yes
airlock approve "$ID" >/dev/null
wait
RAW=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["result"])' $OUT 2>/dev/null)
[ -n "$RAW" ] || { echo "not signed: $(cat $OUT)"; result def; }
echo "--- what was signed:"; node $JS/decode.cjs "$RAW"
echo "fee info shown in prompt: $SHOWN"
[ $SHOWN = no ] && result got || result def
