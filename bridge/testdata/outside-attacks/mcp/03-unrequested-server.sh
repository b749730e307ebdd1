#!/bin/bash
# Reach a host-declared server the sandbox did NOT request (and an undeclared name),
# through path tricks on /mcp/NAME: traversal, encoding, case, slashes, query, Host header.
source "$(dirname "$0")/lib.sh"
REC2="$T/srv/rec2.jsonl"
cat > "$AIRLOCK_HOME/mcp.hcl" <<H
server "atk" {
  command = ["/usr/bin/python3", "$T/srv/server.py"]
  env = { REC = "$REC" }
}
server "other" {
  command = ["/usr/bin/python3", "$T/srv/server.py", "other"]
  env = { REC = "$REC2" }
}
H
write_sandbox 'mcp "atk" {}'
up || die "up failed"
py_in "$CLIENT
import socket
paths = ['/mcp/other','/mcp/OTHER','/mcp/Other','/mcp/other/','/mcp//other','/mcp/atk/../other','/mcp/./other','/mcp/atk%2f..%2fother',
 '/mcp/%6fther','/mcp/other%00','/mcp/other?x=1','/mcp/atk/other','/MCP/other','/mcp/other#x','//mcp/other','/mcp/%2e%2e/mcp/other',
 '/mcp/atk/..%2fother','/mcp/other%20','/mcp/ other','/mcp/other.','/mcp/atk?name=other','/mcp/atk;other','/mcp/','/mcp','/','/mcp/..','/mcp/nonexist']
for p in paths:
    try:
        st,h,t = post(p, {'jsonrpc':'2.0','id':1,'method':'initialize','params':{'protocolVersion':'2025-03-26','capabilities':{},'clientInfo':{'name':'x','version':'1'}}})
        print(repr(p), st, t[:90].replace(chr(10),' '))
        sid = h.get('Mcp-Session-Id')
        if st==200 and sid:
            print('  call', post(p, {'jsonrpc':'2.0','id':2,'method':'tools/call','params':{'name':'echo','arguments':{}}}, sid)[2][:90])
    except Exception as e: print(repr(p),'EXC',e)
# raw request with absolute-form URL and odd Host headers
for req in [b'POST http://127.0.0.1:8551/mcp/other HTTP/1.1\r\n', b'POST /mcp/atk/../other HTTP/1.1\r\n', b'POST mcp/other HTTP/1.1\r\n', b'POST /mcp/other HTTP/1.0\r\n']:
    s=socket.create_connection(('127.0.0.1',8551),timeout=10)
    body=b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{\"name\":\"x\",\"version\":\"1\"}}}'
    s.sendall(req+b'Host: other\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: '+str(len(body)).encode()+b'\r\nConnection: close\r\n\r\n'+body)
    d=b''
    while True:
        try: c=s.recv(4096)
        except Exception: break
        if not c: break
        d+=c
    print(req.strip(), d[:60])
" || true
sleep 1
echo "--- other server started?"; ls -la "$REC2" 2>&1
echo "--- bridge log:"; grep -i mcp "$AIRLOCK_HOME/logs/bridge.log" | tail -5
[ -e "$REC2" ] && gotthrough
defended
