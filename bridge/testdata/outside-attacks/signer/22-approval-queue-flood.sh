#!/bin/bash
# From inside: open 150 concurrent personal_sign requests (approval=always), each ~2 KB, to flood the human's
# approval queue. Checks: the queue is capped (or the excess refused) and the bridge stays responsive.
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
      operations = ["personal_sign"]
      approval = "always"
    }
  }
}'
airlock exec atk -- sh -c 'M=$(printf "61%.0s" $(seq 1 1000))
for i in $(seq 1 150); do printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"personal_sign\",\"params\":[\"0x%04x%s\",\"'$ADDR'\"]}" $i $i "$M" > /tmp/f$i; done
for i in $(seq 1 150); do curl -s -m 12 -XPOST --data-binary @/tmp/f$i $AIRLOCK_SIGNER > /tmp/fr$i & done; sleep 10; wait' &
sleep 6
S=$(date +%s%N); PEND=$(airlock approvals --json | python3 -c 'import json,sys;print(len(json.load(sys.stdin)))'); E=$(( ($(date +%s%N)-S)/1000000 ))
echo "pending approvals from one sandbox: $PEND (listing took ${E} ms)"
wait
REFUSED=$(airlock exec atk -- sh -c 'cat /tmp/fr* | grep -o "\"message\":\"[^\"]*" | sort | uniq -c')
echo "responses: $REFUSED"
airlock ls >/dev/null 2>&1 || { echo "bridge not answering"; result got; }
[ "${PEND:-0}" -ge 100 ] && result got || result def
