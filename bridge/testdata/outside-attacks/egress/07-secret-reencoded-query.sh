#!/bin/bash
# The injected secret comes back re-encoded. The credential goes in a query parameter (query = "key")
# and looks like many API keys do (base64: '/', '+', '='; here also ':'). The credential host answers a
# 301 whose Location and headers carry the key re-encoded the ways frameworks build canonical URLs:
# '/' and ':' left raw (Python's quote(), Werkzeug's url_quote), lower-case escapes, quote_plus. The
# scrubber knows the raw and the one percent-encoded spelling. Also /echo (raw, encoded, Set-Cookie,
# trailer, base64). Got through when any response header the agent receives, percent-decoded, holds
# the secret.
. "$(dirname "$0")/lib.sh"
SECRET='Ab/Cd+Ef=Gh:Ij'
host_settings ''
secret qk "$SECRET"
up 'credential "q" {
    secret = "qk"
    hosts  = ["svc.test"]
    query  = "key"
    env    = "QK"
  }'
pyin "
for p in ['/reenc', '/echo']:
    r = tls('svc.test:$SP', 'svc.test', ('GET %s?key=%s HTTP/1.1\r\nHost: svc.test:$SP\r\nConnection: close\r\n\r\n' % (p, os.environ['QK'])).encode(), t=5)
    sys.stdout.write(r.decode('latin-1'))
" </dev/null > "$T/resp" 2>&1
grep -q "$(printf '%s' "$SECRET" | python3 -c 'import sys,urllib.parse;print(urllib.parse.quote(sys.stdin.read(),safe=""))')" "$REC" || setup_error "the server did not get the injected key"
n=$(python3 - "$T/resp" "$SECRET" <<'P'
import sys,urllib.parse,base64
resp=open(sys.argv[1],encoding="latin-1",newline="").read(); s=sys.argv[2]; n=0
heads=[]  # header lines only: a body that echoes the secret is a documented limit
for block in resp.split("HTTP/1.1 ")[1:]:
    head,_,rest=block.partition("\r\n\r\n")
    heads+=head.split("\r\n")
    if "\r\n0\r\n" in rest: heads+=rest.split("\r\n0\r\n",1)[1].split("\r\n")  # chunked trailers
for line in heads:
    forms={"raw":line,"unquote":urllib.parse.unquote(line),"unquote_plus":urllib.parse.unquote_plus(line)}
    for how,v in forms.items():
        if s in v:
            print("  secret readable (%s) in: %s" % (how, line), file=sys.stderr); n+=1; break
print(n)
P
)
echo "response lines the secret can be read back from: $n"
result "$n"
