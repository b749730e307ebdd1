#!/bin/bash
# Approve rules hold by destination, not by spelling. The host holds "svc.test POST /repos/*/*/releases";
# from inside, the same server is reached as: the IP literal, two other names that resolve to it
# (alias.test, api.svc.test), a trailing dot, upper case, IPv4-mapped/compatible IPv6, decimal, octal and
# short IPv4 forms, percent-encoded host, SNI or Host header naming another host than CONNECT, plain HTTP
# in absolute form (by name and by IP), and plain HTTP sent inside a CONNECT tunnel. Got through when any
# of them reaches the server without a prompt.
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test POST /repos/*/*/releases"]'
up
# name|mode|connect-target|sni|host-header
cases="ip-literal|tls|127.0.0.1:$SP|127.0.0.1|127.0.0.1:$SP
alias|tls|alias.test:$SP|alias.test|alias.test:$SP
subdomain|tls|api.svc.test:$SP|api.svc.test|api.svc.test:$SP
trailing-dot|tls|svc.test.:$SP|svc.test|svc.test.:$SP
upper|tls|SVC.TEST:$SP|svc.test|SVC.TEST:$SP
v4mapped|tls|[::ffff:127.0.0.1]:$SP|svc.test|[::ffff:127.0.0.1]:$SP
v4mapped-hex|tls|[::ffff:7f00:1]:$SP|svc.test|[::ffff:7f00:1]:$SP
v4compat|tls|[::127.0.0.1]:$SP|svc.test|[::127.0.0.1]:$SP
decimal|tls|2130706433:$SP|svc.test|2130706433:$SP
octal|tls|0177.0.0.1:$SP|svc.test|0177.0.0.1:$SP
short|tls|127.1:$SP|svc.test|127.1:$SP
pct-host|tls|svc%2etest:$SP|svc.test|svc.test:$SP
sni-other|tls|alias.test:$SP|svc.test|svc.test:$SP
host-other|tls|svc.test:$SP|svc.test|alias.test:$SP
host-ip|tls|svc.test:$SP|svc.test|127.0.0.1:$SP
plain-abs|abs|svc.test:$HP|-|svc.test:$HP
plain-abs-ip|abs|127.0.0.1:$HP|-|127.0.0.1:$HP
plain-abs-alias|abs|alias.test:$HP|-|alias.test:$HP
plain-in-connect|connect-plain|svc.test:$HP|-|svc.test:$HP
plain-in-connect-ip|connect-plain|127.0.0.1:$HP|-|127.0.0.1:$HP"
out=$(pyin "
import sys
for line in sys.argv[1].splitlines():
    name,mode,tgt,sni,hosth=line.split('|')
    path='/repos/%s/b/releases' % name
    req=lambda p: ('POST %s HTTP/1.1\\r\\nHost: %s\\r\\nContent-Length: 1\\r\\nConnection: close\\r\\n\\r\\nx' % (p, hosth)).encode()
    try:
        if mode == 'tls': r = tls(tgt, sni, req(path), t=1.5, verify=False)
        elif mode == 'abs': r = plain(req('http://'+tgt+path), t=1.5)
        else:
            s = socket.create_connection(PX); s.sendall(('CONNECT %s HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n' % (tgt, tgt)).encode())
            read_until(s, b'\\r\\n\\r\\n'); s.sendall(req(path)); r = _recv_all(s, 1.5)
    except Exception as e: r = repr(e).encode()
    st = 'held (no answer)' if b'timed out' in r else ('refused: too many prompts waiting (held)' if b'too many approval' in r else (status(r) or r[:70].decode('latin-1') or '(closed)'))
    print('  %-20s %s' % (name, st))
" "$cases" </dev/null 2>&1)
echo "$out"
n=$(reached '^/repos/'); echo "reached the server without a prompt: $n"
[ "$n" -gt 0 ] && cut -c1-200 "$REC"
result "$n"
