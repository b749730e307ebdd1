#!/bin/bash
# rate = "3/minute", approval=never. One JSON-RPC batch of 8 personal_sign requests over TCP, plus 8 concurrent
# ones over the unix socket /run/airlock/signer.sock. At most 3 may be signed.
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
      rate = "3/minute"
      approval = "never"
    }
  }
}'
B=$(python3 -c 'import json,sys;print(json.dumps([{"jsonrpc":"2.0","id":i,"method":"personal_sign","params":["0x%04x"%i,sys.argv[1]]} for i in range(8)]))' $ADDR)
N=$(airlock exec atk -- sh -c '
echo '"'$B'"' > /tmp/batch.json
for i in $(seq 10 17); do printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"personal_sign\",\"params\":[\"0x%04x\",\"'$ADDR'\"]}" $i $i > /tmp/u$i; done
curl -s -m 20 -XPOST --data-binary @/tmp/batch.json $AIRLOCK_SIGNER > /tmp/rb &
for i in $(seq 10 17); do curl -s -m 20 --unix-socket $AIRLOCK_SIGNER_SOCK -XPOST --data-binary @/tmp/u$i http://x/ > /tmp/ru$i & done; wait
cat /tmp/rb /tmp/ru* | grep -o "\"result\"" | wc -l')
echo "signed: $N (rate allows 3)"
[ "${N:-0}" -gt 3 ] && result got || result def
