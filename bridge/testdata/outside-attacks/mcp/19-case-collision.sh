#!/bin/bash
# The server really has both "Secret_Tool" and "secret_tool"; only "Secret_Tool" is allowed.
# Call the lower-case twin (and variants) -- a case-folding or normalising filter would pass it.
source "$(dirname "$0")/lib.sh"
write_mcp_hcl 'tools = ["Secret_Tool"]'
write_sandbox 'mcp "atk" { tools = ["Secret_Tool"] }'
up || die "up failed"
py_in "$CLIENT
sid,st,t=init()
print(post('/mcp/atk',{'jsonrpc':'2.0','id':2,'method':'tools/list'},sid)[2][:200])
for n in ['secret_tool','SECRET_TOOL','secret_Tool','Secret_tool','Secret\u017fTool'.replace('\u017fT','_T'),'\u0053ecret_Tool','Secret_Tool\u200b','Ｓecret_Tool','Secret_Tool']:
    print(repr(n), post('/mcp/atk',{'jsonrpc':'2.0','id':3,'method':'tools/call','params':{'name':n,'arguments':{}}},sid)[2][:90])
" || true
rec_calls | sort | uniq -c
rec_calls | grep -q -x "'Secret_Tool'" || die "positive control failed"
rec_calls | grep -v -x "'Secret_Tool'" | grep -q . && gotthrough
defended
