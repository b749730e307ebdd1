#!/bin/bash
# The agent writes the injected secret into the host's logs. The credential host (or anyone who can
# make it misbehave) answers with a malformed header line or Content-Length that carries the request's
# Authorization value; Go's transport error quotes the offending bytes and the bridge logs that error
# ("egress: upstream ... err=...") in $AIRLOCK_HOME/logs/bridge.log, in plain text, on every request
# the agent sends. Not visible inside, but logs get pasted into bug reports. Also checks egress.log,
# policy log, approvals and the audit log. Got through when any file under $AIRLOCK_HOME other than the
# secret store holds the secret.
. "$(dirname "$0")/lib.sh"
SECRET='SeCrEt-VALUE-0123456789'
host_settings 'approve = ["svc.test POST /held"]'
secret tok "$SECRET"
up 'credential "tok" {
    secret = "tok"
    hosts  = ["svc.test"]
    header = "Authorization"
    format = "Bearer %s"
    env    = "TOK"
  }'
pyin "
for p in ['/badhdr', '/badlen', '/badstatus', '/badproto', '/echo']:
    tls('svc.test:$SP', 'svc.test', ('GET %s HTTP/1.1\r\nHost: svc.test:$SP\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\n' % (p, os.environ['TOK'])).encode(), t=5)
" </dev/null >/dev/null 2>&1
airlock policy log atk >/dev/null 2>&1
grep -q "Bearer $SECRET" "$REC" || setup_error "the server did not get the injected secret"
found=$(grep -rl --exclude-dir=secrets -F "$SECRET" "$AIRLOCK_HOME" 2>/dev/null)
for f in $found; do echo "  secret in ${f#$AIRLOCK_HOME/}: $(grep -F "$SECRET" "$f" | head -1 | cut -c1-200)"; done
result "$(printf '%s' "$found" | grep -c .)"
