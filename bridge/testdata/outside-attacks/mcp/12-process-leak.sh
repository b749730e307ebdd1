#!/bin/bash
# Leak host processes past stop/rm/bridge death: a server (host-declared) that ignores SIGTERM/
# SIGHUP, keeps running after stdin EOF and has a child in its group; the agent keeps calling
# during `airlock stop` to race a respawn. Checked after stop, start+rm, and `kill -9` of the bridge
# (and bridge -stop). Got through if any server process survives any of them.
source "$(dirname "$0")/lib.sh"
write_mcp_hcl 'env = { REC = "'"$REC"'", STUBBORN = "'"${STUBBORN_MODE:-1}"'" }'
sed -i '0,/env = { REC = "[^"]*", SERVER_SECRET = "[^"]*" }/s///' "$AIRLOCK_HOME/mcp.hcl"
write_sandbox 'mcp "atk" {}'
up || die "up failed"
procs() { pgrep -f "$T/srv/server.py" | tr '\n' ' '; }
callloop() { timeout 25 airlock exec "$SB" -- /usr/bin/python3 -c "$CLIENT
import time
for i in range($1):
    try:
        sid,_,_=init(); post('/mcp/atk',{'jsonrpc':'2.0','id':2,'method':'tools/call','params':{'name':'echo','arguments':{}}},sid)
    except Exception as e: pass
    time.sleep(0.05)
" >/dev/null 2>&1; }
got=0
callloop 1; echo "running: $(procs)"; [ -n "$(procs)" ] || die "server did not start"
callloop 200 & L=$!; sleep 1
timeout 30 airlock stop "$SB" >/dev/null 2>&1; wait $L 2>/dev/null; sleep 3
p=$(procs); echo "after stop: [$p]"; [ -n "$p" ] && got=1
timeout 30 airlock start "$SB" >/dev/null 2>&1; callloop 1; echo "after start: $(procs)"
timeout 30 airlock rm --force "$SB" >/dev/null 2>&1; sleep 3; p=$(procs); echo "after rm: [$p]"; [ -n "$p" ] && got=1
for p in $(procs); do kill -9 $p; done
up || die "up2"; callloop 1; echo "running: $(procs)"
BPID=$(tr -dc 0-9 < "$AIRLOCK_HOME/bridge.lock"); kill -9 "$BPID"; sleep 4
p=$(procs); echo "after kill -9 bridge: [$p]"; [ -n "$p" ] && got=1
for p in $(procs); do kill -9 $p; done
timeout 30 airlock ls >/dev/null 2>&1; timeout 30 airlock start "$SB" >/dev/null 2>&1; callloop 1; echo "running: $(procs)"
timeout 20 airlock bridge -stop >/dev/null 2>&1; sleep 3
p=$(procs); echo "after bridge -stop: [$p]"; [ -n "$p" ] && got=1
for p in $(procs); do kill -9 $p; done
[ $got = 1 ] && gotthrough
defended
