# in-sandbox MCP client helper; usage: python3 -c "$CLIENT" NAME < script-of-json-lines?  (we use functions via exec)
import json, sys, urllib.request, http.client
BASE = "127.0.0.1"; PORT = 8551
def post(path, body, sid=None, headers=None, raw=False):
    c = http.client.HTTPConnection(BASE, PORT, timeout=25)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if sid: h["Mcp-Session-Id"] = sid
    if headers: h.update(headers)
    data = body if raw else json.dumps(body)
    if isinstance(data, str): data = data.encode()
    c.request("POST", path, body=data, headers=h)
    r = c.getresponse()
    txt = r.read().decode(errors="replace")
    return r.status, dict(r.getheaders()), txt
def init(path="/mcp/atk", pv="2025-03-26"):
    st, h, t = post(path, {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":pv,"capabilities":{"sampling":{},"elicitation":{},"roots":{}},"clientInfo":{"name":"x","version":"1"}}})
    sid = h.get("Mcp-Session-Id") or h.get("mcp-session-id")
    post(path, {"jsonrpc":"2.0","method":"notifications/initialized"}, sid)
    return sid, st, t
