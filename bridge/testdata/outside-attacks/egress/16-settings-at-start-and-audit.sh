#!/bin/bash
# Host settings apply when a sandbox starts, and network decisions are audited. With the sandbox up,
# the host adds a deny for alias.test and an approve rule to egress.hcl, then stop + start: the deny
# must refuse and the rule must hold. The held request is approved from the host: the signer audit log
# must carry a "network" event with the full URL and body hash, `audit verify` must pass, and
# `policy log` must mark the request held:approved. Got through when any of that is missing.
. "$(dirname "$0")/lib.sh"
host_settings ''
up
bad=0
pyin "print('before:', status(tls('alias.test:$SP','alias.test',b'GET /a HTTP/1.1\r\nHost: alias.test:$SP\r\nConnection: close\r\n\r\n',t=5,verify=False)))" </dev/null
host_settings 'deny = ["alias.test"]
approve = ["svc.test POST /repos/*/*/releases"]'
airlock stop atk >/dev/null 2>&1 || setup_error "stop"
airlock start atk >/dev/null 2>&1 || setup_error "start"
timeout 30 airlock exec -i atk -- sh -c 'cat > /tmp/c.py' < "$LIBDIR/client.py" || setup_error "copy client"
: > "$REC"
pyin "print('after, alias.test:', status(tls('alias.test:$SP','alias.test',b'GET /b HTTP/1.1\r\nHost: alias.test:$SP\r\nConnection: close\r\n\r\n',t=5)))" </dev/null
[ "$(reached '^/b')" -eq 0 ] || { echo "deny added before start not enforced"; bad=1; }
pyin "print('after, held POST:', status(tls('svc.test:$SP','svc.test',b'POST /repos/o/r/releases?tag=audit-me HTTP/1.1\r\nHost: svc.test:$SP\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello',t=30)))" </dev/null &
P=$!
if wait_pending 1 10; then airlock approve "$(pending_ids | head -1)" >/dev/null; else echo "approve rule added before start not enforced"; bad=1; fi
wait $P
SUM=$(printf hello | sha256sum | cut -c1-64)
grep '"event":"network"' "$AIRLOCK_HOME/audit/signer.jsonl" 2>/dev/null | grep 'releases?tag=audit-me' | grep -q "$SUM" \
  && echo "audit: network event with URL and body hash" || { echo "audit: no network event with the request's identity"; bad=1; }
airlock audit verify >/dev/null 2>&1 && echo "audit verify: ok" || { echo "audit verify failed"; bad=1; }
airlock policy log atk 2>/dev/null | grep 'tag=audit-me' | grep -q 'held:approved' && echo "policy log: held:approved" || { echo "policy log does not show held:approved"; bad=1; }
result $bad
