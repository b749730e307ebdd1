#!/bin/bash
# Signer audit log's new per-sandbox refusal rate (burst 100, then 1/10 s,
# the rest counted into an "unlogged" entry). The agent sends 600 garbage
# JSON-RPC requests to the guest signer endpoint, then one distinctive
# refused request (the "attempt" it wants to hide). Checks: host cost
# bounded (lines, bytes, time), every refusal accounted for after the
# bridge stops (count + unlogged == sent), chain verifies. Prints whether
# the distinctive request's own line (digest, reason) survived - by design
# it may be only counted.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo && echo hi > README && write_sandbox clone
up_sandbox
t0=$(date +%s.%N)
airlock exec $N -- python3 - >$T/agent.out 2>&1 <<'PY' || { cat $T/agent.out; exit 2; }
import http.client
c=http.client.HTTPConnection("127.0.0.1",8550,timeout=10); n=0
for i in range(600):
    c.request("POST","/",body='{"jsonrpc":"2.0","id":1,"method":"eth_signTypedData_v4","params":["0xbad%d","x"]}'%i,headers={"content-type":"application/json"}); c.getresponse().read(); n+=1
c.request("POST","/",body='{"jsonrpc":"2.0","id":7,"method":"eth_sendTransaction","params":[{"to":"0x00000000000000000000000000000000000ATTACK"}]}',headers={"content-type":"application/json"}); print("marker:",c.getresponse().read()[:120]); n+=1
print("sent",n)
PY
t1=$(date +%s.%N); cat $T/agent.out
A=$AIRLOCK_HOME/audit/signer.jsonl
airlock rm --force $N >/dev/null 2>&1; airlock bridge -stop >/dev/null 2>&1; sleep 1   # Close flushes the counts
python3 - "$A" 601 "$N" <<'PY' || R=1
import json,sys
L=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]
mine=[e for e in L if e.get("sandbox")==sys.argv[3] and e.get("event")=="refuse"]
lines=[e for e in mine if not e.get("unlogged")]; cnt=len(lines)+sum(e.get("unlogged",0) for e in mine)
print("refuse lines:",len(lines),"unlogged entries:",len(mine)-len(lines),"accounted:",cnt,"of",sys.argv[2])
print("distinctive request logged with its own line:", any(e.get("method")=="eth_sendTransaction" for e in lines))
sys.exit(0 if cnt>=int(sys.argv[2]) and len(lines)<=110 else 1)
PY
echo "audit file $(wc -c <$A) bytes; flood took $(echo "$t1 - $t0" | bc) s"
airlock audit verify --file $A 2>&1 | tail -1; airlock audit verify --file $A >/dev/null 2>&1 || { echo "chain does not verify"; R=1; }
finish
