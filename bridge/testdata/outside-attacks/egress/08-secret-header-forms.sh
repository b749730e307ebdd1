#!/bin/bash
# The injected secret (header credential, "Bearer %s") in response headers, the forms the README says
# are scrubbed (raw, percent-encoded, base64, base64url, Basic, reason phrase, Set-Cookie, Location,
# WWW-Authenticate, chunked trailers, 103 Early Hints, malformed responses) and three it does not
# name: hex, reversed, and split over an obs-fold continuation line (Go's reader joins the two halves
# with one space). Got through when any header line the agent receives holds the secret in one of
# these forms (raw, hex, reversed, or with one space inside).
. "$(dirname "$0")/lib.sh"
SECRET='SeCrEt-VALUE-0123456789'
host_settings ''
secret tok "$SECRET"
up 'credential "tok" {
    secret = "tok"
    hosts  = ["svc.test"]
    header = "Authorization"
    format = "Bearer %s"
    env    = "TOK"
  }'
pyin "
for p in ['/echo', '/fold', '/hint', '/badhdr', '/badstatus', '/badproto']:
    r = tls('svc.test:$SP', 'svc.test', ('GET %s?x=1 HTTP/1.1\r\nHost: svc.test:$SP\r\nAuthorization: Bearer %s\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n' % (p, os.environ['TOK'])).encode(), t=5)
    sys.stdout.write(r.decode('latin-1'))
" </dev/null > "$T/resp" 2>&1
grep -q "Bearer $SECRET" "$REC" || setup_error "the server did not get the injected secret"
n=$(python3 - "$T/resp" "$SECRET" <<'P'
import sys,urllib.parse,base64
resp=open(sys.argv[1],encoding="latin-1",newline="").read(); s=sys.argv[2]; n=0
heads=[]  # header lines only: a body that echoes the secret is a documented limit
for block in resp.split("HTTP/1.1 ")[1:]:
    head,_,rest=block.partition("\r\n\r\n")
    heads+=head.split("\r\n")
    if "\r\n0\r\n" in rest: heads+=rest.split("\r\n0\r\n",1)[1].split("\r\n")
forms={"raw":s,"hex":s.encode().hex(),"reversed":s[::-1],"base64":base64.b64encode(s.encode()).decode().rstrip("=")}
for line in heads:
    for how,f in forms.items():
        if f in line or f in urllib.parse.unquote(line) or any(f in line[:i]+line[i+1:] for i in range(len(line)) if line[i] == " "):
            print("  secret readable (%s) in: %s" % (how, line), file=sys.stderr); n+=1; break
print(n)
P
)
echo "response header lines the secret can be read back from: $n"
result "$n"
