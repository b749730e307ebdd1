#!/bin/bash
# An approved request is sent at most once. On one intercepted connection the agent warms an upstream
# connection (GET), then sends a held DELETE carrying Idempotency-Key (which makes Go's transport treat
# a request as replayable) to a server path that reads the request and drops the connection; the host
# approves it. Then the same for unheld POST/PUT/PATCH with Idempotency-Key on a reused connection.
# Got through when any of them reaches the server twice.
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test DELETE /items/*"]'
up
bad=0
pyin "
ts,h=tunnel('svc.test:$SP','svc.test',t=40)
ts.sendall(b'GET /warm HTTP/1.1\r\nHost: svc.test:$SP\r\n\r\n'); read_until(ts,b'/warm\\n')
ts.sendall(b'DELETE /items/drop HTTP/1.1\r\nHost: svc.test:$SP\r\nIdempotency-Key: k1\r\nContent-Length: 0\r\n\r\n')
print('held DELETE:', status(_recv_all(ts,40)))
" </dev/null &
P=$!
wait_pending 1 || setup_error "DELETE was not held"
airlock approve "$(pending_ids | head -1)" >/dev/null
wait $P
n=$(reached '^/items/drop'); echo "approved DELETE reached the server $n time(s)"
[ "$n" -le 1 ] || bad=1
pyin "
for m,extra in [('POST','Idempotency-Key: a\r\n'),('PATCH','X-Idempotency-Key: a\r\n'),('PUT','')]:
  ts,h=tunnel('svc.test:$SP','svc.test',t=10)
  ts.sendall(b'GET /warm HTTP/1.1\r\nHost: svc.test:$SP\r\n\r\n'); read_until(ts,b'/warm\\n')
  ts.sendall(('%s /drop-%s HTTP/1.1\r\nHost: svc.test:$SP\r\n%sContent-Length: 1\r\n\r\nx'%(m,m,extra)).encode())
  _recv_all(ts,8)
" </dev/null
for m in POST PATCH PUT; do n=$(reached "^/drop-$m"); echo "unheld $m: reached $n time(s)"; [ "$n" -le 1 ] || bad=1; done
result $bad
