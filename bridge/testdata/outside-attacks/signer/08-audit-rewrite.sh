#!/bin/bash
# Host-side tampering: the audit chain is plain SHA-256 of the previous line (no key/MAC). With the bridge stopped,
# drop today's "allow" entries, re-chain the rest, rewrite signer.jsonl.head. Does `airlock audit verify` notice,
# and does the restarted bridge (which replays the day's spend from this log) hand out a fresh daily budget?
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
      daily_limit = "0.2 ether"
      rate = "1000/minute"
      approval = "never"
    }
  }
}'
n=0; N=0
mk(){ echo '{"jsonrpc":"2.0","id":1,"method":"eth_signTransaction","params":[{"from":"'$ADDR'","type":"0x2","chainId":"0xaa36a7","nonce":"'$1'","to":"0x000000000000000000000000000000000000dEaD","value":"0x16345785d8a0000","gas":"0x5208","maxFeePerGas":"0x1","maxPriorityFeePerGas":"0x1"}]}'; }
spend(){ for i in 1 2 3; do n=$((n+1)); mk $(printf 0x%x $n) | rpc atk | grep -q '"result"' && N=$((N+1)); done; }
spend; echo "signed before tampering: $N (limit allows 2)"
airlock bridge -stop >/dev/null 2>&1; sleep 0.5
python3 - "$AIRLOCK_HOME/audit/signer.jsonl" <<'PY'
import json,hashlib,sys
p=sys.argv[1]; lines=[l for l in open(p,'rb').read().split(b'\n') if l]
keep=[json.loads(l) for l in lines if json.loads(l).get("event")!="allow"]
out=[]; prev="0"*64
for i,e in enumerate(keep):
    e["seq"]=i+1; e["prev"]=prev
    b=json.dumps(e,separators=(",",":")).encode(); out.append(b); prev=hashlib.sha256(b).hexdigest()
open(p,'wb').write(b"\n".join(out)+b"\n")
h=json.dumps({"count":len(out),"last":prev},separators=(",",":")).encode()
open(p+".head",'wb').write(h.ljust(256,b" "))
print("rewrote log: %d -> %d entries"%(len(lines),len(out)))
PY
V=$(airlock audit verify 2>&1); echo "audit verify: $V (rc=$?)"
airlock ls >/dev/null 2>&1
spend; echo "signed total after tampering + restart: $N"
GOT=no; [ $N -gt 2 ] && GOT=yes
echo "$V" | grep -qiE 'ok|verified' && ! echo "$V" | grep -qiE 'fail|mismatch|broken|error' && GOT=yes
[ $GOT = yes ] && result got || result def
