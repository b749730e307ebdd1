#!/bin/bash
# The host narrows mcp.hcl (drops secret_tool, then removes the server) after the sandbox is up.
# Got through if, after `airlock stop`+`start`, the sandbox can still call what the host removed
# (the running session keeping its grant until restart is only reported).
source "$(dirname "$0")/lib.sh"
write_mcp_hcl 'tools = ["echo","secret_tool"]'
write_sandbox 'mcp "atk" {}'
up || die "up failed"
call() { py_in "$CLIENT
sid,st,t=init()
print(st, post('/mcp/atk',{'jsonrpc':'2.0','id':2,'method':'tools/call','params':{'name':'secret_tool','arguments':{'phase':'$1'}}},sid)[2][:100])" 2>&1; }
echo "before: $(call before)"
write_mcp_hcl 'tools = ["echo"]'
echo "running, after narrowing: $(call running)"
timeout 30 airlock stop "$SB" >/dev/null 2>&1; timeout 40 airlock start "$SB" >"$T/st" 2>&1; echo "start rc=$? $(tail -1 $T/st)"
echo "after restart: $(call restart)"
echo 'server "zzz" {' > "$AIRLOCK_HOME/mcp.hcl"; echo ' command = ["/bin/true"]' >> "$AIRLOCK_HOME/mcp.hcl"; echo '}' >> "$AIRLOCK_HOME/mcp.hcl"
timeout 30 airlock stop "$SB" >/dev/null 2>&1; timeout 40 airlock start "$SB" >"$T/st" 2>&1; echo "start (server removed) rc=$? $(tail -1 $T/st)"
echo "after removal+restart: $(call removed)"
grep -q '"phase": "running"' "$REC" && echo "(note: running sandbox kept the old grant until restart)"
grep -q -E '"phase": "(restart|removed)"' "$REC" && gotthrough
defended
