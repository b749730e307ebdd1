#!/bin/bash
# Two sandboxes (same key, approval=always) send the identical personal_sign at the same time.
# The human approves only s1's request. s2 must not receive a signature.
. "$(dirname "$0")/lib.sh"
fresh
BLK='  backend = "namespace"
  memory = "512MiB"
  workspace { mode = "mountless" }
  network { preset = "locked-down" }
  signer {
    key "k" { ref = "dep" }
    policy "p" {
      key = "k"
      operations = ["personal_sign"]
      approval = "always"
    }
  }'
HCL="sandbox \"s1\" {
$BLK
}
sandbox \"s2\" {
$BLK
}"
up "$HCL" s1; up "$HCL" s2
B='{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x6c6f67696e","'$ADDR'"]}'
(echo "$B" | RPC_TIMEOUT=8 rpc s1 > $PROJ/s1.json) &
sleep 0.5
(echo "$B" | RPC_TIMEOUT=8 rpc s2 > $PROJ/s2.json) &
for i in $(seq 1 40); do J=$(airlock approvals --json 2>/dev/null); echo "$J" | grep -q '"s1"' && break; sleep 0.25; done
echo "$J" | python3 -c 'import json,sys;[print("pending:",x["id"],x["sandbox"]) for x in json.load(sys.stdin)]'
ID=$(echo "$J" | python3 -c 'import json,sys;print([x["id"] for x in json.load(sys.stdin) if x["sandbox"]=="s1"][0])') || setup_fail "no approval"
airlock approve $ID >/dev/null
sleep 1.5
for id in $(airlock approvals --json | python3 -c 'import json,sys;[print(x["id"]) for x in json.load(sys.stdin)]'); do airlock deny $id >/dev/null; done
wait
echo "s1: $(head -c 90 $PROJ/s1.json)"; echo "s2: $(head -c 90 $PROJ/s2.json)"
grep -q '"result"' $PROJ/s2.json && result got || result def
