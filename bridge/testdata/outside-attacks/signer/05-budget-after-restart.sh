#!/bin/bash
# Spend the whole daily_limit, then restart the bridge (and separately rm/up the sandbox under the same name)
# and spend again. The day's spend must be replayed from the audit log.
. "$(dirname "$0")/lib.sh"
fresh
HCL='sandbox "atk" {
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
up "$HCL"
N=0; n=0
mk(){ echo '{"jsonrpc":"2.0","id":1,"method":"eth_signTransaction","params":[{"from":"'$ADDR'","type":"0x2","chainId":"0xaa36a7","nonce":"'$1'","to":"0x000000000000000000000000000000000000dEaD","value":"0x16345785d8a0000","gas":"0x5208","maxFeePerGas":"0x1","maxPriorityFeePerGas":"0x1"}]}'; }
spend(){ for i in 1 2 3; do n=$((n+1)); mk $(printf 0x%x $n) | rpc atk | grep -q '"result"' && N=$((N+1)); done; }
spend; echo "signed before restart: $N"
airlock bridge -stop >/dev/null 2>&1; sleep 0.5; airlock ls >/dev/null 2>&1
spend; echo "signed total after bridge restart: $N"
airlock rm --force atk >/dev/null 2>&1; up "$HCL"
spend; echo "signed total after rm + up with the same name: $N"
[ $N -gt 2 ] && result got || result def
