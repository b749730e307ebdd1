#!/bin/bash
# Protocol tricks on an intercepted (held) host: Upgrade to websocket and to h2c (if the 101 were
# relayed, the rest of the connection would be an opaque pipe to the server), the HTTP/2 prior-knowledge
# preface inside TLS, ALPN h2, and request smuggling with both Content-Length and Transfer-Encoding
# (CL.TE and TE.CL, a held POST hidden in the body of an unheld one), obs-fold and duplicate
# Content-Length. The host holds "svc.test POST /repos/*/*/releases".
# Got through when the held request reaches the server, or bytes after a 101 reach it.
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test POST /repos/*/*/releases"]'
up
H="svc.test:$SP"
pyin "
HELD=b'POST /repos/a/b/releases HTTP/1.1\r\nHost: $H\r\nContent-Length: 1\r\n\r\nS'
for up in [b'websocket', b'h2c']:
    ts,h=tunnel('$H','svc.test',t=5)
    ts.sendall(b'GET /upgrade HTTP/1.1\r\nHost: $H\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: '+up+b'\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n')
    r=read_until(ts,b'\r\n\r\n',5)
    print('upgrade', up, status(r))
    try:
        ts.sendall(HELD); r=_recv_all(ts,3)
    except Exception as e: r=repr(e).encode()
ts,h=tunnel('$H','svc.test',t=5,alpn=['h2','http/1.1'])
print('ALPN offered h2, proxy chose', ts.selected_alpn_protocol())
ts.close()
r=tls('$H','svc.test',b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'+HELD,t=3); print('h2 preface:', status(r) or r[:60])
smug=[
 ('CL.TE', b'POST /ok1 HTTP/1.1\r\nHost: $H\r\nContent-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n' ),
 ('TE.CL', b'POST /ok2 HTTP/1.1\r\nHost: $H\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n%x\r\n'),
 ('TE-space', b'POST /ok3 HTTP/1.1\r\nHost: $H\r\nTransfer-Encoding : chunked\r\nContent-Length: %d\r\n\r\n0\r\n\r\n'),
 ('TE-fold', b'POST /ok4 HTTP/1.1\r\nHost: $H\r\nX: y\r\n Transfer-Encoding: chunked\r\nContent-Length: %d\r\n\r\n0\r\n\r\n'),
 ('TE-xchunked', b'POST /ok5 HTTP/1.1\r\nHost: $H\r\nTransfer-Encoding: xchunked\r\nContent-Length: %d\r\n\r\n0\r\n\r\n'),
 ('dup-CL', b'POST /ok6 HTTP/1.1\r\nHost: $H\r\nContent-Length: 0\r\nContent-Length: %d\r\n\r\n'),
]
for name,head in smug:
    if name=='TE.CL': raw=head % (len(HELD),) + HELD + b'\r\n0\r\n\r\n'
    else: raw=(head % (len(HELD)+5 if b'0\r\n\r\n' in head else len(HELD),)) + HELD
    r=tls('$H','svc.test',raw,t=3)
    print('%-12s %s' % (name, ' / '.join(l.decode('latin-1') for l in r.split(b'\r\n') if l.startswith(b'HTTP/')) or 'held (no answer)'))
" </dev/null 2>&1
bad=0
n=$(reached 'releases'); echo "held request reached the server: $n"; [ "$n" -eq 0 ] || { cut -c1-200 "$REC"; bad=1; }
grep -q '"raw_after_upgrade": "[^"]' "$REC" && { echo "bytes after a 101 reached the server"; bad=1; }
result $bad
