# helpers used inside the sandbox (python3 -c "$(cat client.py) ...")
import socket, ssl, os, sys, time, json, base64, hashlib
PX = ("127.0.0.1", 3128)
def _recv_all(s, t=8):
    s.settimeout(t); out = b""
    try:
        while True:
            d = s.recv(65536)
            if not d: break
            out += d
    except Exception as e:
        out += b"\n[recv-exc " + repr(e).encode() + b"]"
    return out
def plain(raw, t=8):
    s = socket.create_connection(PX); s.sendall(raw); r = _recv_all(s, t); s.close(); return r
def tunnel(target, sni, t=8, verify=True, alpn=None, hostport=None):
    s = socket.create_connection(PX)
    hp = hostport or target
    s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, hp)).encode())
    h = b""
    s.settimeout(t)
    while b"\r\n\r\n" not in h:
        d = s.recv(1)
        if not d: break
        h += d
    if b" 200" not in h.split(b"\r\n")[0]:
        return None, h
    ctx = ssl.create_default_context(cafile=os.environ.get("SSL_CERT_FILE"))
    if not verify:
        ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
    if alpn: ctx.set_alpn_protocols(alpn)
    ts = ctx.wrap_socket(s, server_hostname=sni)
    return ts, h
def tls(target, sni, raw, t=8, verify=True):
    ts, h = tunnel(target, sni, t, verify)
    if ts is None: return b"[connect refused] " + h
    ts.sendall(raw); r = _recv_all(ts, t); ts.close(); return r
def status(r):
    return r.split(b"\r\n", 1)[0].decode("latin-1")
def read_until(s, mark, t=8):
    s.settimeout(t); out = b""
    while mark not in out:
        d = s.recv(4096)
        if not d: break
        out += d
    return out
