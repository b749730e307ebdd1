#!/bin/bash
# Concurrent eth_signTransaction requests, each within max_value, together beyond daily_limit (approval=never).
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
      daily_limit = "0.3 ether"
      rate = "1000/minute"
      approval = "never"
    }
  }
}'
# 16 parallel requests of 0.1 ether each, from inside
N=$(airlock exec atk -- sh -c '
for i in $(seq 1 16); do
  printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"eth_signTransaction\",\"params\":[{\"from\":\"'$ADDR'\",\"type\":\"0x2\",\"chainId\":\"0xaa36a7\",\"nonce\":\"0x%x\",\"to\":\"0x000000000000000000000000000000000000dEaD\",\"value\":\"0x16345785d8a0000\",\"gas\":\"0x5208\",\"maxFeePerGas\":\"0x6fc23ac00\",\"maxPriorityFeePerGas\":\"0x3b9aca00\"}]}" $i $i > /tmp/b$i
done
for i in $(seq 1 16); do curl -s -m 20 -XPOST --data-binary @/tmp/b$i $AIRLOCK_SIGNER > /tmp/r$i & done; wait
cat /tmp/r* | grep -o "\"result\"" | wc -l')
echo "signed: $N of 16 (daily limit allows 3)"
[ "${N:-0}" -gt 3 ] && result got || result def
