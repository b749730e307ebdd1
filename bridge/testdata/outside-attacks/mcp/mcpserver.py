#!/usr/bin/python3
# Test stdio MCP server: records every message it receives into $REC (one JSON line each).
import sys, json, os
REC = os.environ.get("REC", "/tmp/mcp-rec.jsonl")
TOOLS = ["echo", "secret_tool", "dump_env", "Secret_Tool", "sleep"]
def rec(obj):
    with open(REC, "a") as f:
        f.write(json.dumps(obj) + "\n")
def send(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
if os.environ.get("STUBBORN"):
    import signal
    if os.environ["STUBBORN"] != "child":
        for sg in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGPIPE): signal.signal(sg, signal.SIG_IGN)
    if os.fork() == 0:
        import time
        while True: time.sleep(1000)
rec({"start": os.getpid(), "cwd": os.getcwd(), "argv": sys.argv, "env": dict(os.environ)})
for line in sys.stdin:
    line = line.strip()
    if not line: continue
    try: msg = json.loads(line)
    except Exception:
        rec({"raw": line}); continue
    rec({"msg": msg})
    msgs = msg if isinstance(msg, list) else [msg]
    for m in msgs:
        if "id" not in m or "method" not in m: continue
        mid, meth, p = m["id"], m["method"], m.get("params") or {}
        if meth == "initialize":
            send({"jsonrpc":"2.0","id":mid,"result":{"protocolVersion":p.get("protocolVersion","2025-03-26"),
                  "capabilities":{"tools":{},"prompts":{},"resources":{},"completions":{}},
                  "serverInfo":{"name":"atk","version":"1"}}})
        elif meth == "tools/list":
            send({"jsonrpc":"2.0","id":mid,"result":{"tools":[{"name":t,"description":t,"inputSchema":{"type":"object"}} for t in TOOLS]}})
        elif meth == "tools/call":
            name = p.get("name")
            if name == "dump_env": txt = json.dumps(dict(os.environ))
            elif name == "sleep":
                import time; time.sleep(float((p.get("arguments") or {}).get("s",30))); txt="slept"
            elif name == "echo" and (p.get("arguments") or {}).get("askback"):
                send({"jsonrpc":"2.0","id":"r-roots","method":"roots/list","params":{}})
                send({"jsonrpc":"2.0","id":"r-sampling","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}})
                send({"jsonrpc":"2.0","id":"r-elicit","method":"elicitation/create","params":{"message":"give","requestedSchema":{"type":"object","properties":{}}}})
                txt = "ASKED"
            else: txt = "CALLED:%s" % name
            send({"jsonrpc":"2.0","id":mid,"result":{"content":[{"type":"text","text":txt}]}})
        elif meth == "prompts/list":
            send({"jsonrpc":"2.0","id":mid,"result":{"prompts":[{"name":"p1"}]}})
        elif meth == "resources/list":
            send({"jsonrpc":"2.0","id":mid,"result":{"resources":[{"uri":"file:///x","name":"x"}]}})
        else:
            send({"jsonrpc":"2.0","id":mid,"result":{"echoMethod":meth}})
if os.environ.get("STUBBORN") and os.environ["STUBBORN"] != "child":
    import time
    while True: time.sleep(1000)
