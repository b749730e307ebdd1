#!/bin/bash
# Second sandbox: sandbox a may call secret_tool, sandbox b only echo. b replays a's
# Mcp-Session-Id (and guessed ids) to reach a's session/server and call secret_tool; b also tries
# a's server name. Got through if a call made from b reaches secret_tool or a's server process.
source "$(dirname "$0")/lib.sh"
write_mcp_hcl ''
SBNAME=a write_sandbox 'mcp "atk" { tools = ["echo","secret_tool"] }'
SBNAME=a up || die "up a"
mkdir -p "$T/repo2"; ( cd "$T/repo2"; git init -q . )
cat > "$T/repo2/sandbox.hcl" <<H
sandbox "b" {
  backend = "namespace"
  memory = "512MiB"
  workspace { mode = "mountless" }
  mcp "atk" { tools = ["echo"] }
}
H
( cd "$T/repo2" && timeout 60 airlock up -f sandbox.hcl --yes ) >"$T/upb" 2>&1 || { cat "$T/upb"; die "up b"; }
SB=a
SIDA=$(py_in "$CLIENT
sid,st,t=init()
post('/mcp/atk',{'jsonrpc':'2.0','id':2,'method':'tools/call','params':{'name':'echo','arguments':{'from':'a'}}},sid)
print(sid)")
echo "a session: $SIDA"
: > "$T/mark"; n0=$(rec_calls | grep -c secret_tool)
timeout 30 airlock exec b -- /usr/bin/python3 -c "$CLIENT
import sys
sida='$SIDA'
for s in [sida, sida.upper(), sida.lower(), sida+' ', 'a:'+sida, '', '0', '1', 'undefined']:
    try: r=post('/mcp/atk',{'jsonrpc':'2.0','id':9,'method':'tools/call','params':{'name':'secret_tool','arguments':{'from':'b'}}},s or None)
    except Exception as e: r=('EXC',e)
    print(repr(s)[:40], r[0], str(r[-1])[:110])
    try: r=post('/mcp/atk',{'jsonrpc':'2.0','id':10,'method':'tools/call','params':{'name':'echo','arguments':{'from':'b-with-a-sid'}}},s or None)
    except Exception as e: r=('EXC',e)
    print('  echo', r[0], str(r[-1])[:80])
sid,st,t=init()
print('b own session', sid, post('/mcp/atk',{'jsonrpc':'2.0','id':11,'method':'tools/call','params':{'name':'secret_tool','arguments':{}}},sid)[2][:100])
" 2>&1
sleep 1
echo "--- server starts:"; grep -c '"start"' "$REC"
echo "--- a log:"; airlock mcp log a | tail -4; echo "--- b log:"; airlock mcp log b | tail -4
timeout 30 airlock rm --force b >/dev/null 2>&1
grep -q '"from": "a"' "$REC" || die "positive control: a echo"
got=0
grep '"from": "b"' "$REC" | grep -q secret_tool && got=1
grep -q 'b-with-a-sid' <(airlock mcp log a --json 2>/dev/null) && got=1
/usr/bin/python3 - "$REC" <<'P' && got=1
import json,sys
# did any call from b reach secret_tool?
for l in open(sys.argv[1]):
    o=json.loads(l); m=o.get("msg")
    if isinstance(m,dict) and m.get("method")=="tools/call" and m["params"].get("name")=="secret_tool" and (m["params"].get("arguments") or {}).get("from")=="b": sys.exit(0)
sys.exit(1)
P
[ $got = 1 ] && gotthrough
defended
