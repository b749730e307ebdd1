#!/bin/bash
# Session games across sandboxes: b (echo only) DELETEs a's session, re-initializes *with* a's
# Mcp-Session-Id (fixation), opens a GET stream on it; a (echo+secret_tool) then uses its session.
# Also per protocol version (2024-11-05..2025-11-25) a task-augmented secret_tool call from b.
# Got through if b's secret_tool call reaches the server, b can kill/steal a's session, or a's
# later calls run under b's policy/log.
source "$(dirname "$0")/lib.sh"
write_mcp_hcl ''
SBNAME=a write_sandbox 'mcp "atk" { tools = ["echo","secret_tool"] }'
SBNAME=a up || die "up a"
mkdir -p "$T/repo2"; ( cd "$T/repo2"; git init -q . )
printf 'sandbox "b" {\n backend = "namespace"\n memory = "512MiB"\n workspace { mode = "mountless" }\n mcp "atk" { tools = ["echo"] }\n}\n' > "$T/repo2/sandbox.hcl"
( cd "$T/repo2" && timeout 60 airlock up -f sandbox.hcl --yes ) >"$T/upb" 2>&1 || die "up b"
SB=a
SIDA=$(py_in "$CLIENT
sid,st,t=init(); print(sid)")
echo "a sid $SIDA"
timeout 30 airlock exec b -- /usr/bin/python3 -c "$CLIENT
sida='$SIDA'
c=http.client.HTTPConnection('127.0.0.1',8551,timeout=10)
c.request('DELETE','/mcp/atk',headers={'Mcp-Session-Id':sida}); r=c.getresponse(); print('DELETE a', r.status, r.read()[:80])
st,h,t=post('/mcp/atk',{'jsonrpc':'2.0','id':1,'method':'initialize','params':{'protocolVersion':'2025-03-26','capabilities':{},'clientInfo':{'name':'x','version':'1'}}},sida)
print('init with a sid', st, h.get('Mcp-Session-Id'), t[:80])
print('call on it', post('/mcp/atk',{'jsonrpc':'2.0','id':2,'method':'tools/call','params':{'name':'secret_tool','arguments':{'from':'b'}}},sida)[2][:100])
for pv in ['2024-11-05','2025-03-26','2025-06-18','2025-11-25']:
    sid,st,t=init(pv=pv)
    for body in [{'jsonrpc':'2.0','id':3,'method':'tools/call','params':{'name':'secret_tool','arguments':{'from':'b'},'task':{'ttl':60000}}},
                 {'jsonrpc':'2.0','id':4,'method':'tasks/list','params':{}}]:
        r=post('/mcp/atk',body,sid,headers={'MCP-Protocol-Version':pv}); print(pv, body['method'], r[0], r[2][:90])
" 2>&1
py_in "$CLIENT
r=post('/mcp/atk',{'jsonrpc':'2.0','id':5,'method':'tools/call','params':{'name':'secret_tool','arguments':{'from':'a-after'}}},'$SIDA')
print('a after b games:', r[0], r[2][:100])
" 2>&1
sleep 1
echo "--- b log:"; airlock mcp log b | cut -c1-120; echo "--- a log:"; airlock mcp log a | cut -c1-120
timeout 30 airlock rm --force b >/dev/null 2>&1
[ -n "$SIDA" ] || die "no session for a"
got=0
grep '"from": "b"' "$REC" | grep -q secret_tool && { echo "!! b reached secret_tool"; got=1; }
# a's session must still work and be logged as a
grep -q '"from": "a-after"' "$REC" || { echo "!! a's session was killed/hijacked by b"; got=1; }
[ $got = 1 ] && gotthrough
defended
