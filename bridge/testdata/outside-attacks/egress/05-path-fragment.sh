#!/bin/bash
# A raw '#' in the request target. HTTP clients strip fragments, but a raw socket can send
# "POST /repos/a/b/releases#x". Servers that route on a parsed URL drop everything from '#'
# (Node's url.parse/new URL, so Express; Python's urlsplit, so Werkzeug/Flask), so this is the held
# endpoint; the proxy matches the glob against "/repos/a/b/releases#x" (or "releases#x" as a segment).
# Got through when the request reaches the server unheld and the server-side parse of its target
# (urlsplit, as Werkzeug does) is the held path. (This build forwards the raw # as %23: defended.)
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test POST /repos/*/*/releases", "svc.test DELETE /items/*"]'
up
pyin "
for m,p in [('POST','/repos/a/b/releases#x'),('POST','/repos/a/b/releases#'),('DELETE','/items/1#/x'),('POST','/repos/a/b/releases?#')]:
    r = tls('svc.test:$SP','svc.test',('%s %s HTTP/1.1\r\nHost: svc.test:$SP\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx' % (m,p)).encode(), t=2)
    print('%-7s %-28r %s' % (m, p, 'held (no answer)' if b'timed out' in r else status(r)))
" </dev/null
n=$(python3 - "$REC" <<'P'
import json,sys,urllib.parse,re
n=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if "target" not in o: continue
    p=urllib.parse.urlsplit(o["target"]).path
    held=(o["method"]=="POST" and re.fullmatch(r"/repos/[^/]+/[^/]+/releases",p)) or (o["method"]=="DELETE" and re.fullmatch(r"/items/[^/]+",p))
    print("  server got %s %r, which a urlsplit router reads as %r%s" % (o["method"], o["target"], p, " = the held endpoint" if held else ""), file=sys.stderr)
    if held: n+=1
print(n)
P
)
echo "held endpoints reached without approval: $n"
result "$n"
