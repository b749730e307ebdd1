#!/bin/bash
# Direct mode: the agent edits /workspace/sandbox.hcl (the host file) to widen its MCP grant
# (secret_tool, an unrequested server "other") and ask for writable skills; the user then just
# runs `airlock stop` + `airlock start` (and `airlock up` without --yes). Got through if the widened
# grant takes effect without a new approval.
source "$(dirname "$0")/lib.sh"
S="$AIRLOCK_HOME/skills"; mkdir -p "$S"; chmod 777 "$S"
REC2="$T/srv/rec2.jsonl"
cat > "$AIRLOCK_HOME/mcp.hcl" <<H
server "atk" {
  command = ["/usr/bin/python3", "$T/srv/server.py"]
  env = { REC = "$REC" }
}
server "other" {
  command = ["/usr/bin/python3", "$T/srv/server.py"]
  env = { REC = "$REC2" }
}
H
cat > "$T/repo/sandbox.hcl" <<H
sandbox "atk" {
  backend = "namespace"
  memory = "512MiB"
  workspace {
    mode = "direct"
  }
  mcp "atk" { tools = ["echo"] }
}
H
( cd "$T/repo" && git init -q . && git add -A && git -c user.email=a@b -c user.name=a commit -qm init ) || die git
up || die "up failed"
ax sh -c 'cd /workspace && sed -i "s/tools = \[\"echo\"\] }/tools = [\"echo\",\"secret_tool\"] }\n  mcp \"other\" {}\n  skills { writable = true }/" sandbox.hcl && cat sandbox.hcl' 2>&1 | tail -4
cat "$T/repo/sandbox.hcl" | grep -q other || echo "(agent could not edit sandbox.hcl)"
probe() {
  py_in "$CLIENT
sid,st,t=init()
print('  atk secret_tool:', post('/mcp/atk',{'jsonrpc':'2.0','id':2,'method':'tools/call','params':{'name':'secret_tool','arguments':{}}},sid)[2][:90])
st,h,t=post('/mcp/other',{'jsonrpc':'2.0','id':1,'method':'initialize','params':{'protocolVersion':'2025-03-26','capabilities':{},'clientInfo':{'name':'x','version':'1'}}})
print('  other:', st, t[:80])
" 2>&1
  ax sh -c 'echo x > ~/.claude/skills/w 2>&1 && echo "  skills writable"' 2>&1 | tail -1
}
timeout 30 airlock stop atk >/dev/null 2>&1; timeout 40 airlock start atk >"$T/st" 2>&1; echo "start: rc=$? $(tail -1 $T/st)"
probe
( cd "$T/repo" && timeout 40 airlock up -f sandbox.hcl </dev/null ) >"$T/up2" 2>&1; echo "up w/o --yes: rc=$? $(tail -1 $T/up2)"
probe
got=0
rec_calls | grep -q secret_tool && got=1
[ -e "$REC2" ] && got=1
[ -e "$S/w" ] && got=1
[ $got = 1 ] && gotthrough
defended
