#!/bin/bash
# The HMAC key "hm" is used by two sandboxes: "prod" may MAC with purpose "deploy-webhook" only after approval;
# "scratch" may MAC with purpose "test" without approval. airlock_hmac does not bind the purpose into the MAC,
# so scratch computes, unasked, the exact MAC prod would need a human for.
# Verdict (adjusted by airlock, attack unchanged): got through only if that works and the plan does not warn.
. "$(dirname "$0")/lib.sh"
fresh
mk() { echo "sandbox \"$1\" {
  backend = \"namespace\"
  memory = \"512MiB\"
  workspace { mode = \"mountless\" }
  network { preset = \"locked-down\" }
  signer {
    key \"h\" { ref = \"hm\" }
    policy \"p\" {
      key = \"h\"
      operations = [\"hmac\"]
      purposes = [\"$2\"]
      approval = \"$3\"
    }
  }
}"; }
HCL="$(mk prod deploy-webhook always)
$(mk scratch test never)"
up "$HCL" prod; up "$HCL" scratch
PAY='{"ref":"refs/heads/main","action":"deploy"}'
PJ=$(python3 -c 'import json,sys;print(json.dumps(sys.argv[1]))' "$PAY")
S=$(echo '{"jsonrpc":"2.0","id":1,"method":"airlock_hmac","params":[{"key":"h","purpose":"test","text":'"$PJ"'}]}' | rpc scratch)
echo "scratch (purpose test, no approval): $S"
(echo '{"jsonrpc":"2.0","id":1,"method":"airlock_hmac","params":[{"key":"h","purpose":"deploy-webhook","text":'"$PJ"'}]}' | RPC_TIMEOUT=10 rpc prod > $PROJ/prod.json) &
for i in $(seq 1 40); do J=$(airlock approvals --json 2>/dev/null); echo "$J" | grep -q '"id"' && break; sleep 0.25; done
ID=$(echo "$J" | python3 -c 'import json,sys;print(json.load(sys.stdin)[0]["id"])') || setup_fail "no approval"
airlock approve $ID >/dev/null; wait
echo "prod (purpose deploy-webhook, approved): $(cat $PROJ/prod.json)"
M1=$(echo "$S" | python3 -c 'import json,sys;print(json.load(sys.stdin)["result"]["mac"])' 2>/dev/null)
M2=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["result"]["mac"])' $PROJ/prod.json 2>/dev/null)
# The MAC is plain HMAC-SHA256 by design (webhook signatures depend on it). What airlock promises instead
# (README, signing section): the purpose is a policy label, a key's weakest policy is its policy, and
# `airlock plan` warns when one hmac key is used under policies with different approval in the same file.
PLAN=$(cd $PROJ && airlock plan 2>&1); WARNED=no
echo "$PLAN" | grep -q 'is used for hmac under policies with different approval' && WARNED=yes
echo "plan warns about the shared hmac key: $WARNED"; echo "$PLAN" | grep 'used for hmac' | head -1
[ -n "$M1" ] && [ "$M1" = "$M2" ] && [ $WARNED = no ] && result got || result def
