#!/bin/bash
# What a sandbox can make the host's bridge hold: a held request's whole body (up to 8 MiB) is read into
# the bridge's memory before the prompt (and before the three-prompt limit is checked), and no read
# deadline applies while the body is read. From a sandbox limited to 512 MiB, 96 connections each send
# a held POST's head and 8 MiB minus one byte of body, then stall. Got through when the bridge (which
# serves every sandbox) grows by more than the sandbox's own memory limit.
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test POST /repos/*/*/releases"]'
up
BPID=$(cat "$AIRLOCK_HOME/bridge.lock" 2>/dev/null)
rss() { awk '/VmRSS/{print int($2/1024)}' /proc/$BPID/status 2>/dev/null; }
[ -n "$BPID" ] && [ -n "$(rss)" ] || setup_error "no bridge pid"
before=$(rss)
pyin "
import threading
N=96; L=8*1024*1024; held=[]
def one(i):
    try:
        ts,h=tunnel('svc.test:$SP','svc.test',t=120)
        ts.sendall(('POST /repos/a/m%d/releases HTTP/1.1\r\nHost: svc.test:$SP\r\nContent-Length: %d\r\n\r\n' % (i, L)).encode())
        chunk=b'A'*65536; sent=0
        while sent < L-65536: ts.sendall(chunk); sent+=65536
        ts.sendall(b'A'*(L-1-sent)); held.append(ts)
    except Exception as e: print('conn', i, e)
ths=[threading.Thread(target=one,args=(i,)) for i in range(N)]
[t.start() for t in ths]; [t.join() for t in ths]
print('connections stalled one byte short of 8 MiB:', len(held)); sys.stdout.flush()
time.sleep(8)
" </dev/null &
P=$!
peak=$before
for i in $(seq 120); do r=$(rss); [ "${r:-0}" -gt "$peak" ] && peak=$r; kill -0 $P 2>/dev/null || break; sleep 0.5; done
wait $P
echo "bridge RSS: ${before} MiB before, ${peak} MiB at the peak (+$((peak-before)) MiB); prompts: $(pending_count)"
[ $((peak-before)) -gt 512 ] && gotthrough
defended
