#!/bin/bash
# Call tools the policy does not allow using name tricks: case, unicode, whitespace, NUL,
# duplicate JSON keys, key-case aliasing, batches, notifications, string/null ids, tasks.
source "$(dirname "$0")/lib.sh"
write_mcp_hcl 'tools = ["echo", "secret_tool", "Secret_Tool", "dump_env", "sleep"]'
write_sandbox 'mcp "atk" { tools = ["echo"] }'
up || die "up failed"
py_in "$CLIENT
sid,st,t = init()
assert sid or st==200, (st,t)
def call(raw, note):
    try: r = post('/mcp/atk', raw, sid, raw=True)
    except Exception as e: r = ('EXC', str(e))
    print(note, '->', str(r[0]), str(r[-1])[:160].replace(chr(10),' '))
C = lambda name, id=10: '{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":%s,\"arguments\":{}}}' % (id, name)
names = ['\"secret_tool\"','\"Secret_Tool\"','\"SECRET_TOOL\"','\"secret_tool \"','\" secret_tool\"','\"secret_tool\\\\u0000\"',
 '\"secret\\\\u005ftool\"','\"\\\\uff53ecret_tool\"','\"echo\\\\u0000secret_tool\"','\"ECHO\"','\"echo \"','\"echo\\\\n\"','\"e\\\\u0301cho\"','\"dump_env\"', '[\"echo\"]', '{\"a\":1}', 'null']
for i,n in enumerate(names): call(C(n, 100+i), 'name='+n)
# duplicate keys
call('{\"jsonrpc\":\"2.0\",\"id\":201,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"name\":\"secret_tool\",\"arguments\":{}}}','dup echo,secret')
call('{\"jsonrpc\":\"2.0\",\"id\":202,\"method\":\"tools/call\",\"params\":{\"name\":\"secret_tool\",\"name\":\"echo\",\"arguments\":{}}}','dup secret,echo')
call('{\"jsonrpc\":\"2.0\",\"id\":203,\"method\":\"tools/call\",\"params\":{\"Name\":\"secret_tool\",\"name\":\"echo\",\"arguments\":{}}}','Name/name')
call('{\"jsonrpc\":\"2.0\",\"id\":204,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"NAME\":\"secret_tool\",\"arguments\":{}}}','name/NAME')
call('{\"jsonrpc\":\"2.0\",\"id\":205,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}},\"params\":{\"name\":\"secret_tool\",\"arguments\":{}}}','dup params')
call('{\"jsonrpc\":\"2.0\",\"id\":206,\"method\":\"tools/call\",\"Method\":\"tools/call\",\"params\":{\"name\":\"secret_tool\"}}','Method key')
call('{\"jsonrpc\":\"2.0\",\"id\":207,\"method\":\"tools/list\",\"method\":\"tools/call\",\"params\":{\"name\":\"secret_tool\",\"arguments\":{}}}','dup method list,call')
call('{\"jsonrpc\":\"2.0\",\"id\":208,\"method\":\"tools/call\",\"method\":\"tools/list\",\"params\":{\"name\":\"secret_tool\",\"arguments\":{}}}','dup method call,list')
call('{\"jsonrpc\":\"2.0\",\"id\":209,\"method\":\"Tools/Call\",\"params\":{\"name\":\"secret_tool\",\"arguments\":{}}}','Method case')
call('{\"jsonrpc\":\"2.0\",\"id\":210,\"method\":\"tools/call \",\"params\":{\"name\":\"secret_tool\",\"arguments\":{}}}','method space')
call('{\"jsonrpc\":\"2.0\",\"id\":211,\"method\":\"tools\\\\u002fcall\",\"params\":{\"name\":\"secret_tool\",\"arguments\":{}}}','method escaped')
# ids
call('{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/call\",\"params\":{\"name\":\"secret_tool\",\"arguments\":{}}}','string id')
call('{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"tools/call\",\"params\":{\"name\":\"secret_tool\",\"arguments\":{}}}','null id')
call('{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"secret_tool\",\"arguments\":{}}}','notification')
call('{\"jsonrpc\":\"1.0\",\"id\":212,\"method\":\"tools/call\",\"params\":{\"name\":\"secret_tool\",\"arguments\":{}}}','jsonrpc 1.0')
call('{\"id\":213,\"method\":\"tools/call\",\"params\":{\"name\":\"secret_tool\",\"arguments\":{}}}','no jsonrpc')
# batches
call('['+C('\"echo\"',301)+','+C('\"secret_tool\"',302)+']','batch echo+secret')
call('['+C('\"secret_tool\"',303)+']','batch secret')
# tasks / meta / progress
call('{\"jsonrpc\":\"2.0\",\"id\":401,\"method\":\"tools/call\",\"params\":{\"name\":\"secret_tool\",\"arguments\":{},\"task\":{\"ttl\":1000},\"_meta\":{\"progressToken\":\"p\"}}}','task')
call('{\"jsonrpc\":\"2.0\",\"id\":402,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{},\"_meta\":{\"name\":\"secret_tool\",\"progressToken\":1}}}','meta name')
# stateless / no session / other protocol
for pv in ['2024-11-05','2025-06-18','2026-07-28','9999-01-01']:
    try: r = post('/mcp/atk', C('\"secret_tool\"',500), None, headers={'MCP-Protocol-Version':pv}, raw=True)
    except Exception as e: r=('EXC',str(e))
    print('nosession', pv, str(r[0]), str(r[-1])[:120])
    try: r = post('/mcp/atk', '{\"jsonrpc\":\"2.0\",\"id\":501,\"method\":\"tools/call\",\"params\":{\"name\":\"secret_tool\",\"arguments\":{},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"%s\"}}}'%pv, None, headers={'MCP-Protocol-Version':pv}, raw=True)
    except Exception as e: r=('EXC',str(e))
    print('nosession-meta', pv, str(r[0]), str(r[-1])[:120])
" || true
sleep 1
echo "--- tools/call names that reached the server:"
rec_calls | sort | uniq -c
echo "--- mcp log:"; airlock mcp log "$SB" | tail -5
rec_calls | grep -q -x "'echo'" || die "positive control: allowed echo did not reach server"
bad=$(rec_calls | grep -v -x "'echo'" | wc -l)
[ "$bad" -gt 0 ] && gotthrough
defended
