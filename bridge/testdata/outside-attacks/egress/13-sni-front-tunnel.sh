#!/bin/bash
# A held host behind another allowed name, picked by SNI. Names that share a server front (a CDN's
# addresses serve every site on it, chosen by SNI) but resolve to different addresses: the proxy
# decides by the CONNECT name, finds no approve rule for front.test (its address is not one of
# svc.test's), and tunnels without looking at the ClientHello. Inside the tunnel the client handshakes
# with SNI svc.test, gets svc.test's real certificate (not verified here: the sandbox does not trust the
# test cert; a public one would verify) and POSTs to the held endpoint. Here the
# front is the same server on 127.0.0.2. The README's limit says a held server reached under a name
# that resolves elsewhere is not held; the SNI naming the held host is in clear text at CONNECT time.
# Got through when the held POST reaches the server with no prompt.
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test POST /repos/*/*/releases"]'
sed -i 's|^allow = .*|allow = ["127.0.0.1", "127.0.0.2"]|; s|"api.svc.test" = "127.0.0.1" }|"api.svc.test" = "127.0.0.1", "front.test" = "127.0.0.2" }|' "$AIRLOCK_HOME/egress.hcl"
NETALLOW='"front.test"' up
pyin "
r = tls('front.test:$SP', 'svc.test', b'POST /repos/a/b/releases HTTP/1.1\r\nHost: svc.test:$SP\r\nContent-Length: 1\r\nConnection: close\r\n\r\nF', t=4, verify=False)
print('CONNECT front.test, SNI svc.test:', 'held (no answer)' if b'timed out' in r else (status(r) or r[:80]))
" </dev/null
echo "prompts: $(pending_count)"
n=$(reached '^/repos/a/b/releases'); echo "held POST reached the server unheld: $n"
result "$n"
