#!/bin/bash
# Approval for request A must not sign request B: A and B (different nonces/values) pending at once,
# human approves only A by ID (and tries A's ID with B's digest). Also: a request whose client
# disconnected, approved afterwards, must not be served to a re-sent variant.
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
      max_value = "1 ether"
      approval = "always"
    }
  }
}'
mk(){ echo '{"jsonrpc":"2.0","id":1,"method":"eth_signTransaction","params":[{"from":"'$ADDR'","type":"0x2","chainId":"0xaa36a7","nonce":"'$1'","to":"0x000000000000000000000000000000000000dEaD","value":"'$2'","gas":"0x5208","maxFeePerGas":"0x1","maxPriorityFeePerGas":"0x1"}]}'; }
(mk 0x1 0x1 | RPC_TIMEOUT=10 rpc atk > $PROJ/a.json) &
sleep 0.5
(mk 0x2 0xde0b6b3a7640000 | RPC_TIMEOUT=10 rpc atk > $PROJ/b.json) &
for i in $(seq 1 40); do J=$(airlock approvals --json 2>/dev/null); [ "$(echo "$J" | grep -c '"id"')" -ge 2 ] && break; sleep 0.25; done
read IDA DA IDB DB < <(echo "$J" | python3 -c '
import json,sys
d=json.load(sys.stdin); a=[x for x in d if x["details"]["nonce"]==1][0]; b=[x for x in d if x["details"]["nonce"]==2][0]
print(a["id"],a["digest"],b["id"],b["digest"])') || setup_fail "approvals"
airlock approve $IDA --digest $DB >/dev/null 2>&1 && echo "approve A's id with B's digest accepted!"
airlock approve $IDA >/dev/null
sleep 1.5
airlock deny $IDB >/dev/null 2>&1
wait
echo "A: $(head -c 100 $PROJ/a.json)"; echo "B: $(head -c 100 $PROJ/b.json)"
GOT=no; grep -q '"result"' $PROJ/b.json && GOT=yes
# disconnect case
(mk 0x3 0x2 | RPC_TIMEOUT=1 rpc atk >/dev/null) ; sleep 0.3
J=$(airlock approvals --json); ID3=$(echo "$J" | python3 -c 'import json,sys;d=json.load(sys.stdin);print(d[0]["id"] if d else "")')
[ -n "$ID3" ] && { echo "stale approval still listed: $ID3"; airlock approve $ID3 >/dev/null 2>&1; }
R=$(mk 0x3 0x3 | RPC_TIMEOUT=2 rpc atk); echo "variant after disconnect: $R"; echo "$R" | grep -q '"result"' && GOT=yes
[ $GOT = yes ] && result got || result def
