#!/bin/bash
# Run server-side functionality through JSON-RPC methods other than tools/call:
# prompts/*, resources/*, completion/complete, logging/setLevel, tasks/*, sampling/elicitation
# responses, unknown methods, notifications. Defended if none of them reaches the server.
source "$(dirname "$0")/lib.sh"
write_mcp_hcl 'tools = ["echo", "secret_tool"]'
write_sandbox 'mcp "atk" { tools = ["echo"] }'
up || die "up failed"
py_in "$CLIENT
sid,st,t = init()
meths = [('prompts/list',{}),('prompts/get',{'name':'p1'}),('resources/list',{}),('resources/read',{'uri':'file:///etc/passwd'}),
 ('resources/templates/list',{}),('resources/subscribe',{'uri':'file:///x'}),
 ('completion/complete',{'ref':{'type':'ref/prompt','name':'p1'},'argument':{'name':'a','value':'b'}}),
 ('logging/setLevel',{'level':'debug'}),('ping',{}),('tasks/list',{}),('tasks/get',{'taskId':'1'}),('tasks/result',{'taskId':'1'}),
 ('sampling/createMessage',{'messages':[],'maxTokens':1}),('elicitation/create',{'message':'x','requestedSchema':{}}),('roots/list',{}),
 ('x/secret_tool',{}),('secret_tool',{}),('rpc.discover',{}),('server/discover',{}),('initialize',{'protocolVersion':'2025-03-26','capabilities':{},'clientInfo':{'name':'y','version':'1'}})]
for i,(m,p) in enumerate(meths):
    try: r = post('/mcp/atk', {'jsonrpc':'2.0','id':700+i,'method':m,'params':p}, sid)
    except Exception as e: r=('EXC',str(e))
    print(m,'->',r[0],str(r[-1])[:140])
for m in ['notifications/cancelled','notifications/progress','notifications/roots/list_changed','notifications/tools/call','notifications/message','notifications/secret_tool']:
    try: r = post('/mcp/atk', {'jsonrpc':'2.0','method':m,'params':{'requestId':2,'progressToken':1,'progress':1,'name':'secret_tool'}}, sid)
    except Exception as e: r=('EXC',str(e))
    print(m,'->',r[0],str(r[-1])[:100])
# a JSON-RPC *response* from the client (as if answering a server request)
for body in [{'jsonrpc':'2.0','id':1,'result':{'roots':[{'uri':'file:///'}]}},{'jsonrpc':'2.0','id':0,'result':{}}]:
    try: r = post('/mcp/atk', body, sid)
    except Exception as e: r=('EXC',str(e))
    print('response', body['id'], '->', r[0], str(r[-1])[:100])
" || true
sleep 1
echo "--- methods that reached the server:"; rec_methods | sort | uniq -c
bad=$(rec_methods | grep -v -x -E 'server/discover|initialize|notifications/initialized|tools/list|ping|notifications/cancelled' | wc -l)
calls=$(rec_calls | grep -v -x "'echo'" | wc -l)
[ "$bad" -gt 0 -o "$calls" -gt 0 ] && gotthrough
defended
