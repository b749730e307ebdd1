#!/bin/bash
# Get the host's environment through the MCP server: the bridge is started with secret-looking
# variables (AIRLOCK_PASSPHRASE, AWS_SECRET_ACCESS_KEY, SSH_AUTH_SOCK, a marker); the agent calls an
# allowed tool that returns the server's environment. README: server env = PATH, HOME, USER, LANG,
# TZ + mcp.hcl env only. Got through if any other host variable reaches the agent.
source "$(dirname "$0")/lib.sh"
write_mcp_hcl 'tools = ["dump_env"]'
write_sandbox 'mcp "atk" {}'
export HOST_MARKER_7="hostleak-marker" AIRLOCK_PASSPHRASE="hostleak-pass" AWS_SECRET_ACCESS_KEY="hostleak-aws" SSH_AUTH_SOCK=/tmp/hostleak.sock LD_PRELOAD= PYTHONPATH=/hostleak
up || die "up failed"
out=$(py_in "$CLIENT
sid,st,t=init()
print(post('/mcp/atk',{'jsonrpc':'2.0','id':3,'method':'tools/call','params':{'name':'dump_env','arguments':{}}},sid)[2])
")
echo "$out" | /usr/bin/python3 -c "
import json,sys
r=json.loads(sys.stdin.read()); env=json.loads(r['result']['content'][0]['text'])
for k in sorted(env): print(k, '=', env[k][:80])
" | tee "$T/env.txt"
grep -q "^HOME = " "$T/env.txt" || die "positive control: no env returned"
grep -q hostleak "$T/env.txt" && gotthrough
grep -v -E '^(PATH|HOME|USER|LANG|TZ|REC|SERVER_SECRET|PWD|LC_CTYPE|SHLVL|_) ' "$T/env.txt" | grep -q . && { echo "(extra vars above beyond documented set)"; }
defended
