#!/bin/bash
# One approval must release one request. From inside: three byte-identical held POSTs at once, then
# three held requests pipelined on one TLS connection (a fixed-length one, a chunked one with the same
# body, a third); the host approves one prompt at a time. Got through when any approval lets more than
# one request reach the server, or a held request reaches it with no approval.
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test POST /repos/*/*/releases"]'
up
bad=0
# 1: three identical requests in parallel
ax sh -c "for i in 1 2 3; do curl -s -m 30 -XPOST -d same https://svc.test:$SP/repos/a/b/releases -o /dev/null & done; wait" &
P1=$!
wait_pending 3 || { echo "identical requests: $(pending_count) prompts, want 3 (one each)"; bad=1; }
n=$(reached releases); [ "$n" -eq 0 ] || { echo "identical: $n reached before any approval"; bad=1; }
id=$(pending_ids | head -1); airlock approve "$id" >/dev/null
sleep 1.5
n=$(reached releases); echo "identical: after one approval $n reached the server, $(pending_count) prompts left"
[ "$n" -eq 1 ] || bad=1
deny_all; wait $P1
# 2: pipelined on one connection: approve one prompt at a time, count after each
: > "$REC"
pyin "
ts,h=tunnel('svc.test:$SP','svc.test',t=60)
a=b'POST /repos/a/b/releases HTTP/1.1\r\nHost: svc.test:$SP\r\nContent-Length: 1\r\n\r\nA'
b=b'POST /repos/a/b/releases HTTP/1.1\r\nHost: svc.test:$SP\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nA\r\n0\r\nX-T: 1\r\n\r\n'
c=b'POST /repos/a/b/releases?x=1 HTTP/1.1\r\nHost: svc.test:$SP\r\nContent-Length: 1\r\nConnection: close\r\n\r\nA'
ts.sendall(a+b+c)
_recv_all(ts,60)
" >/dev/null 2>&1 &
P2=$!
for k in 1 2 3; do
  wait_pending 1 || { echo "pipelined #$k: no prompt"; bad=1; break; }
  [ "$(pending_count)" -eq 1 ] || { echo "pipelined #$k: $(pending_count) prompts at once"; }
  airlock approve "$(pending_ids | head -1)" >/dev/null; sleep 1
  n=$(reached releases); echo "pipelined: after approval $k, $n reached"
  [ "$n" -eq "$k" ] || bad=1
done
wait $P2
result $bad
