#!/bin/bash
# Starve/hang the shared bridge: sandbox a holds ~6000 half-sent HTTP requests open to 8551
# (3 processes x 2000; the bridge logs "limit reached" at 256). During the flood sandbox b's MCP
# call and `airlock ls` must work; afterwards `airlock rm b`, `airlock rm a`, `airlock ls` and
# `airlock bridge -stop` must complete. Got through if any of them fails/stalls, or the bridge dies
# or cannot be stopped (then this script SIGKILLs the bridge and the sandbox processes it leaked).
source "$(dirname "$0")/lib.sh"
write_mcp_hcl ''
SBNAME=a write_sandbox 'mcp "atk" {}'
SBNAME=a up || die "up a"
mkdir -p "$T/repo2"; ( cd "$T/repo2"; git init -q . )
printf 'sandbox "b" {\n backend = "namespace"\n memory = "512MiB"\n workspace { mode = "mountless" }\n mcp "atk" {}\n}\n' > "$T/repo2/sandbox.hcl"
( cd "$T/repo2" && timeout 60 airlock up -f sandbox.hcl --yes ) >"$T/upb" 2>&1 || die "up b"
BPID=$(tr -dc 0-9 < "$AIRLOCK_HOME/bridge.lock")
HOLD='
import socket, time, resource
try: resource.setrlimit(resource.RLIMIT_NOFILE,(2100,resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
except Exception as e: print("rlimit",e)
ss=[]
for i in range(2000):
    try:
        s=socket.create_connection(("127.0.0.1",8551),timeout=5); s.sendall(b"POST /mcp/atk HTTP/1.1\r\nHost: 127.0.0.1:8551\r\nContent-Length: 1000\r\n\r\n{"); ss.append(s)
    except Exception as e: print("stop at",i,e); break
print("held",len(ss)); time.sleep(16)'
for i in $(seq 1 ${HOLDERS:-3}); do timeout 40 airlock exec a -- /usr/bin/python3 -c "$HOLD" > "$T/h$i" 2>&1 & done
sleep 9
echo "bridge fds: $(ls /proc/$BPID/fd 2>/dev/null | wc -l)"
stall=0
t0=$(date +%s)
timeout 10 airlock ls >/dev/null 2>&1 || { echo "ls failed"; stall=1; }
timeout 12 airlock exec b -- /usr/bin/python3 -c "$CLIENT
sid,_,_=init(); print(post('/mcp/atk',{'jsonrpc':'2.0','id':2,'method':'tools/call','params':{'name':'echo','arguments':{}}},sid)[2][:200])" > "$T/b" 2>&1 || stall=1
cat "$T/b"; echo "probe took $(( $(date +%s)-t0 ))s"
grep -q CALLED "$T/b" || stall=1
wait; cat "$T"/h[0-9] | tail -3
kill -0 $BPID 2>/dev/null || { echo "bridge died"; stall=1; }
t0=$(date +%s); timeout 25 airlock rm --force b >/dev/null 2>&1 || { echo "!! rm b failed/hung"; stall=1; }
timeout 25 airlock rm --force a >/dev/null 2>&1 || { echo "!! rm a failed/hung after the flood"; stall=1; }
timeout 10 airlock ls >/dev/null 2>&1 || { echo "!! ls hung after the flood"; stall=1; }
SB=""
timeout 15 airlock bridge -stop >/dev/null 2>&1; sleep 2
if kill -0 $BPID 2>/dev/null; then
  echo "!! bridge $BPID still alive after bridge -stop ($(( $(date +%s)-t0 ))s); SIGKILL it and its sandbox processes"
  stall=1
  kids=$(pgrep -P $BPID); gk=""; for k in $kids; do gk="$gk $(pgrep -P $k)"; done
  kill -9 $BPID $kids $gk 2>/dev/null
fi
[ $stall = 1 ] && gotthrough
defended
