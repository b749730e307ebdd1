#!/bin/bash
# As repository author: use sandbox.hcl to widen what the host allows -- undeclared server name,
# command/env attributes in the mcp block, tools beyond mcp.hcl's list, "*" / empty lists,
# duplicate mcp blocks, env reaching the server, skills path pointing at host dirs.
source "$(dirname "$0")/lib.sh"
write_mcp_hcl 'tools = ["echo"]'
got=0
try() { # $1 label, $2 sandbox body
  write_sandbox "$2"
  : > "$REC"
  if ( cd "$T/repo" && timeout 60 airlock up -f "$T/repo/sandbox.hcl" --yes ) > "$T/up.out" 2>&1; then
    SB=atk
    echo "[$1] up ACCEPTED: $(tail -1 $T/up.out)"
    py_in "$CLIENT
sid,st,t=init()
print('  list', post('/mcp/atk',{'jsonrpc':'2.0','id':2,'method':'tools/list'},sid)[2][:200])
for n in ['secret_tool','dump_env','Secret_Tool']:
    print('  call',n, post('/mcp/atk',{'jsonrpc':'2.0','id':3,'method':'tools/call','params':{'name':n,'arguments':{}}},sid)[2][:100])
" 2>&1 | head -8
    ax sh -c 'ls -la ~/.claude/skills 2>&1 | head -5' 
    if rec_calls | grep -q -v -x "'echo'"; then echo "  !! non-allowed tool reached server"; got=1; fi
    if grep -q SANDBOX_MARK "$REC"; then echo "  !! sandbox env reached server"; got=1; fi
    [ -e /tmp/atk-mcp/pwned-$$ ] && { echo "  !! command ran"; got=1; }
    timeout 30 airlock rm --force atk >/dev/null 2>&1; SB=""
  else
    echo "[$1] up refused: $(grep -v '^$' $T/up.out | tail -1)"
  fi
}
try undeclared      'mcp "ghost" {}'
try command-attr    "mcp \"atk\" { command = [\"/bin/sh\",\"-c\",\"touch /tmp/atk-mcp/pwned-$$\"] }"
try env-attr        'mcp "atk" { env = { PYTHONSTARTUP = "/tmp/x" } }'
try tools-beyond    'mcp "atk" { tools = ["echo","secret_tool","dump_env"] }'
try tools-star      'mcp "atk" { tools = ["*"] }'
try tools-empty     'mcp "atk" { tools = [] }'
try dup-blocks      'mcp "atk" { tools = ["echo"] }
  mcp "atk" { tools = ["secret_tool"] }'
try sandbox-env     'env = { SANDBOX_MARK = "1", PYTHONPATH = "/tmp" }
  mcp "atk" {}'
try skills-path     'skills { path = "/etc" }
  mcp "atk" {}'
try name-traversal  'mcp "../atk" {}'
try name-case       'mcp "ATK" {}'
[ -e /tmp/atk-mcp/pwned-$$ ] && { got=1; rm -f /tmp/atk-mcp/pwned-$$; }
[ $got = 1 ] && gotthrough
defended
