#!/bin/bash
# Tamper with / evade the MCP call log: forged lines via newline/ANSI/bidi in tool names,
# allowed calls that are not logged (batches, concurrency, cancelled/progress calls), and host
# disk flooding via huge denied tool names. Got through if `airlock mcp log` shows a forged
# entry, raw control chars, misses an allowed call, or grows > 2 MiB from 20 requests.
source "$(dirname "$0")/lib.sh"
write_mcp_hcl 'tools = ["echo","sleep"]'
write_sandbox 'mcp "atk" { tools = ["echo","sleep"] }'
up || die "up failed"
py_in "$CLIENT
import threading, json
sid,st,t=init()
forge='x\n2026-01-01T00:00:00Z  allow  atk/FORGED_secret_tool  args sha256:00  1B'
for n in [forge, 'y\r2026-01-01T00:00:00Z  allow  atk/FORGED2', 'z\x1b[2K\x1b[1Gallow atk/FORGED3', 'w\u2028FORGED4', '\u202eFORGED5']:
    post('/mcp/atk',{'jsonrpc':'2.0','id':5,'method':'tools/call','params':{'name':n,'arguments':{}}},sid)
# allowed calls in batch / concurrent / cancelled
post('/mcp/atk',[{'jsonrpc':'2.0','id':100+i,'method':'tools/call','params':{'name':'echo','arguments':{'i':i}}} for i in range(5)],sid)
ths=[threading.Thread(target=post,args=('/mcp/atk',{'jsonrpc':'2.0','id':200+i,'method':'tools/call','params':{'name':'echo','arguments':{'c':i}}},sid)) for i in range(10)]
[x.start() for x in ths]; [x.join() for x in ths]
def slow():
    try: post('/mcp/atk',{'jsonrpc':'2.0','id':300,'method':'tools/call','params':{'name':'sleep','arguments':{'s':2},'_meta':{'progressToken':'p'}}},sid)
    except Exception as e: print('slow',e)
th=threading.Thread(target=slow); th.start()
import time; time.sleep(0.5)
post('/mcp/atk',{'jsonrpc':'2.0','method':'notifications/cancelled','params':{'requestId':300}},sid)
th.join()
# abort a call mid-flight by closing the connection
import socket
s=socket.create_connection(('127.0.0.1',8551)); b=json.dumps({'jsonrpc':'2.0','id':301,'method':'tools/call','params':{'name':'sleep','arguments':{'s':1}}}).encode()
s.sendall(b'POST /mcp/atk HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: '+sid.encode()+b'\r\nContent-Length: '+str(len(b)).encode()+b'\r\n\r\n'+b); time.sleep(0.2); s.close()
time.sleep(2)
big='A'*(900*1024)
for i in range(20):
    try: post('/mcp/atk',{'jsonrpc':'2.0','id':400+i,'method':'tools/call','params':{'name':big,'arguments':{}}},sid)
    except Exception as e: print('big',e)
" || true
sleep 1
airlock mcp log "$SB" > "$T/log.txt"; airlock mcp log "$SB" --json > "$T/log.json"
echo "--- log (cut):"; cut -c1-150 "$T/log.txt" | cat -v | head -30
got=0
grep -q -E '^2026-01-01' "$T/log.txt" && { echo "!! forged line"; got=1; }
grep -q $'\x1b\|\r' "$T/log.txt" && { echo "!! raw control char in log output"; got=1; }
srv=$(rec_calls | grep -c -E "'echo'|'sleep'"); logged=$(grep -c -E ' allow ' "$T/log.txt")
echo "allowed calls at server: $srv, allow entries in log: $logged"
[ "$logged" -lt "$srv" ] && { echo "!! allowed call missing from log"; got=1; }
sz=$(du -sb "$AIRLOCK_HOME/sandboxes" | cut -f1); echo "state dir bytes: $sz"
[ "$sz" -gt $((2*1024*1024)) ] && { echo "!! log flood"; du -ab $AIRLOCK_HOME/sandboxes | sort -n | tail -3; got=1; }
[ $got = 1 ] && gotthrough
defended
