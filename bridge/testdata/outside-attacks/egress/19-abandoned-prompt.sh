#!/bin/bash
# A held request whose client hung up. The README counts an abandoned request among the refused ones;
# the proxy waits for the decision with no tie to the client connection, so the prompt stays up (and
# keeps one of the sandbox's three slots) until the timeout, and approving it sends a request nobody
# waits for. Got through when, 5 s after the client closed its connection, the prompt is still
# waiting and approving it sends the request upstream.
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test POST /repos/*/*/releases"]'
up
pyin "print(tls('svc.test:$SP','svc.test',b'POST /repos/o/r/releases HTTP/1.1\r\nHost: svc.test:$SP\r\nContent-Length: 4\r\n\r\ngone',t=2)[:40])" </dev/null >/dev/null 2>&1
sleep 5
n=$(pending_count); echo "prompts 5 s after the client hung up: $n"
[ "$n" -ge 1 ] || defended
airlock approve "$(pending_ids | head -1)" >/dev/null
sleep 1
r=$(reached '^/repos/o/r/releases'); echo "approving it sent the request upstream: $r"
result "$r"
