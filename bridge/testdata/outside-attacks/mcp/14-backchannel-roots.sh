#!/bin/bash
# Server->client back-channels: the (host) server sends roots/list, sampling/createMessage and
# elicitation/create; the agent advertises roots (file:///root, file:///etc) and answers anything
# that arrives on its SSE streams with host paths. Got through if an agent-supplied root / answer
# reaches the host server (a roots-honouring server such as the filesystem MCP server would then
# open host paths the host never granted), or if the gateway itself hands host paths to the server.
source "$(dirname "$0")/lib.sh"
write_mcp_hcl ''
write_sandbox 'mcp "atk" { tools = ["echo"] }'
up || die "up failed"
py_in "$CLIENT
import threading, socket, time
c=http.client.HTTPConnection('127.0.0.1',8551,timeout=25)
INIT={'jsonrpc':'2.0','id':1,'method':'initialize','params':{'protocolVersion':'2025-06-18','capabilities':{'roots':{'listChanged':True},'sampling':{},'elicitation':{}},'clientInfo':{'name':'x','version':'1'}}}
st,h,t=post('/mcp/atk',INIT); sid=h.get('Mcp-Session-Id'); print('init',st,t[:100])
post('/mcp/atk',{'jsonrpc':'2.0','method':'notifications/initialized'},sid)
got=[]
def sse():
    try:
        s=socket.create_connection(('127.0.0.1',8551),timeout=8)
        s.sendall(b'GET /mcp/atk HTTP/1.1\r\nHost: 127.0.0.1:8551\r\nAccept: text/event-stream\r\nMcp-Session-Id: '+sid.encode()+b'\r\n\r\n')
        while True:
            d=s.recv(65536)
            if not d: break
            got.append(d)
    except Exception as e: got.append(str(e).encode())
th=threading.Thread(target=sse,daemon=True); th.start(); time.sleep(0.5)
r=post('/mcp/atk',{'jsonrpc':'2.0','id':2,'method':'tools/call','params':{'name':'echo','arguments':{'askback':1}}},sid)
print('call',r[0],r[2][:300])
post('/mcp/atk',{'jsonrpc':'2.0','method':'notifications/roots/list_changed'},sid)
for rid in ['r-roots',0,1,2,3]:
    post('/mcp/atk',{'jsonrpc':'2.0','id':rid,'result':{'roots':[{'uri':'file:///root','name':'AGENTROOT'},{'uri':'file:///etc','name':'AGENTROOT'}],'role':'assistant','content':{'type':'text','text':'AGENTANSWER'},'model':'x','action':'accept'}},sid)
time.sleep(2)
print('sse got', b''.join(got)[:600])
" || true
sleep 1
echo "--- what the server received back:"; grep -E 'r-roots|r-sampling|r-elicit|roots|AGENT' "$REC" | cut -c1-300
grep -q '"id": "r-roots"' "$REC" || die "positive control: server back-channel not exercised"
grep -q -E 'AGENTROOT|AGENTANSWER' "$REC" && gotthrough
grep '"id": "r-roots"' "$REC" | grep -q 'file://' && { echo "gateway gave host roots"; gotthrough; }
defended
