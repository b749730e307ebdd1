#!/bin/bash
# `airlock policy ls` shows what a sandbox enforces. It lists allow/deny rules and credentials, but
# not the approve rules (the host settings' or those sandbox.hcl adds), so the person cannot see which
# requests will be held, nor that a repository added any. Got through when neither `policy ls` nor its
# --json names an approve rule that is in force (a request it matches is held).
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test POST /repos/*/*/releases"]'
NETEXTRA='approve = ["svc.test DELETE /items/*"]' up
pyin "tls('svc.test:$SP','svc.test',b'DELETE /items/1 HTTP/1.1\r\nHost: svc.test:$SP\r\nConnection: close\r\n\r\n',t=20)" </dev/null >/dev/null 2>&1 &
P=$!
wait_pending 1 10 || setup_error "the sandbox.hcl approve rule did not hold"
deny_all; wait $P
airlock policy ls atk > "$T/ls.txt" 2>&1; airlock policy ls atk --json > "$T/ls.json" 2>&1
n=0
for r in 'svc.test POST /repos/*/*/releases' 'svc.test DELETE /items/*'; do
  if grep -qF "$r" "$T/ls.txt" && grep -qF "$r" "$T/ls.json"; then echo "policy ls shows: $r"; else echo "policy ls does not show the enforced rule: $r"; n=$((n+1)); fi
done
result $n
