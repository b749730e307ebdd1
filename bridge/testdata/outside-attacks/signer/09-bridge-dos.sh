#!/bin/bash
# From inside: huge JSON-RPC batch, deeply nested JSON, 64 MiB body, deeply nested EIP-712 struct types,
# a recursive EIP-712 type, and 200 idle connections. Afterwards the signer and bridge must still answer.
. "$(dirname "$0")/lib.sh"
fresh
up 'sandbox "atk" {
  backend = "namespace"
  memory = "1GiB"
  workspace { mode = "mountless" }
  network { preset = "locked-down" }
  signer {
    key "k" { ref = "dep" }
    policy "p" {
      key = "k"
      operations = ["personal_sign", "eth_signTypedData_v4"]
      chain_ids = [11155111]
      approval = "never"
    }
  }
}'
P=$PROJ/payloads; mkdir -p $P
python3 - "$P" "$ADDR" <<'PY'
import json,sys; sys.setrecursionlimit(100000)
d,a=sys.argv[1],sys.argv[2]
open(d+"/batch","w").write(json.dumps([{"jsonrpc":"2.0","id":i,"method":"eth_chainId"} for i in range(100000)]))
open(d+"/deep","w").write("["*200000+"]"*200000)
D=[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"}]
types={"EIP712Domain":D}; msg={}
N=2000
for i in range(N): types["T%d"%i]=[{"name":"c","type":"T%d"%(i+1)}]
types["T%d"%N]=[{"name":"x","type":"uint256"}]
m={"x":"1"}
for i in range(N-1,-1,-1): m={"c":m}
t={"types":types,"primaryType":"T0","domain":{"name":"x","chainId":11155111},"message":m}
open(d+"/deeptd","w").write(json.dumps({"jsonrpc":"2.0","id":1,"method":"eth_signTypedData_v4","params":[a,json.dumps(t)]}))
r={"types":{"EIP712Domain":D,"R":[{"name":"r","type":"R[]"}]},"primaryType":"R","domain":{"name":"x","chainId":11155111},"message":{"r":[{"r":[{"r":[]}]}]}}
open(d+"/rectd","w").write(json.dumps({"jsonrpc":"2.0","id":1,"method":"eth_signTypedData_v4","params":[a,json.dumps(r)]}))
# wide array: 2^20 elements of uint256[]
w={"types":{"EIP712Domain":D,"W":[{"name":"w","type":"uint256[][]"}]},"primaryType":"W","domain":{"name":"x","chainId":11155111},"message":{"w":[["1"]*1000]*1000}}
open(d+"/widetd","w").write(json.dumps({"jsonrpc":"2.0","id":1,"method":"eth_signTypedData_v4","params":[a,json.dumps(w)]}))
PY
head -c 67108864 /dev/zero | tr '\0' ' ' > $P/huge
for f in batch deep huge deeptd rectd widetd; do
  S=$(date +%s.%N)
  R=$(airlock exec atk -- sh -c "curl -s -m 20 -XPOST --data-binary @- \$AIRLOCK_SIGNER | head -c 150" < $P/$f)
  echo "$f: $(python3 -c "import time;print('%.1fs'%(time.time()-$S))") ${R:0:150}"
done
airlock exec atk -- sh -c 'for i in $(seq 1 200); do (exec 3<>/dev/tcp/127.0.0.1/8550; sleep 8) 2>/dev/null & done; sleep 1; curl -s -m 5 -XPOST -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_chainId\"}" $AIRLOCK_SIGNER; echo " <- during 200 idle conns"' 2>&1 | tail -1
OK=$(echo '{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x6869","'$ADDR'"]}' | rpc atk)
echo "after: $OK" | head -c 120; echo
airlock ls >/dev/null 2>&1 || echo "bridge not answering"
BR=$(airlock ls 2>&1 | grep -c atk)
if echo "$OK" | grep -q '"result"' && [ "$BR" -ge 1 ]; then result def; else result got; fi
