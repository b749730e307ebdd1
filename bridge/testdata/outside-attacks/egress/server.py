#!/usr/bin/env python3
# Recording echo server for the egress attacks: HTTP and HTTPS on loopback.
# usage: server.py REC CERT KEY HTTP_PORT HTTPS_PORT (HTTPS also on 127.0.0.2)
# Every request is appended to REC as one JSON line (target, headers, body hash).
# Paths (matched anywhere in the path):
#   /drop     read the whole request, record it, close without answering
#   /echo     200 echoing the request's headers and query back in response headers,
#             Set-Cookie, Location, WWW-Authenticate, base64/hex forms, a chunked trailer
#             and the body
#   /reenc    301 whose headers carry the ?key= value re-encoded the ways frameworks
#             build canonical URLs ('/' left raw, lower-case escapes, quote_plus)
#   /fold     the credential split over an obs-fold continuation line
#   /hint     a 103 Early Hints carrying the credential before the 200
#   /badhdr /badstatus /badproto /badlen  malformed responses carrying the credential
#   /upgrade  101 then read raw bytes (recorded as raw_after_upgrade)
#   /redir    302 to ?to=
#   /slow     sleep ?s= seconds first
#   else      200 "ok METHOD TARGET"
import base64, gzip, hashlib, json, socket, ssl, sys, threading, time, urllib.parse
REC, CERT, KEY, HP, SP = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
lock = threading.Lock()
cid = [0]
def rec(o):
    with lock:
        with open(REC, "a") as f: f.write(json.dumps(o) + "\n")
def readline(f):
    l = f.readline(65537)
    return l.decode("latin-1")
def handle(sock, tls):
    with lock:
        cid[0] += 1; c = cid[0]
    f = sock.makefile("rb")
    try:
        while True:
            line = readline(f)
            if not line: return
            line = line.rstrip("\r\n")
            if not line: continue
            parts = line.split(" ")
            if len(parts) < 3: return
            method, target = parts[0], parts[1]
            hdrs = []
            while True:
                h = readline(f).rstrip("\r\n")
                if not h: break
                k, _, v = h.partition(":")
                hdrs.append((k.strip(), v.strip()))
            hd = {k.lower(): v for k, v in hdrs}
            body = b""
            if hd.get("transfer-encoding", "").lower() == "chunked":
                while True:
                    n = int(readline(f).split(";")[0].strip() or "0", 16)
                    if n == 0:
                        while readline(f).strip(): pass
                        break
                    body += f.read(n); f.readline()
            elif "content-length" in hd:
                body = f.read(int(hd["content-length"]))
            rec({"conn": c, "tls": tls, "method": method, "target": target, "headers": hdrs,
                 "body_len": len(body), "body_sha": hashlib.sha256(body).hexdigest(), "body": body[:200].decode("latin-1"), "t": time.time()})
            path = target.split("?")[0]
            q = urllib.parse.urlparse(target).query
            auth = hd.get("authorization", "")
            qv = urllib.parse.parse_qs(q).get("key", [""])[0]
            sec = auth or qv
            if "/hint" in path:
                sock.sendall(("HTTP/1.1 103 Early Hints\r\nLink: <" + sec + ">; rel=preload\r\nX-Hint: " + sec + "\r\n\r\n").encode("latin-1"))
                sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); continue
            if "/badhdr" in path:
                sock.sendall(("HTTP/1.1 200 OK\r\n" + sec + "\r\nContent-Length: 2\r\n\r\nok").encode("latin-1")); return
            if "/badstatus" in path:
                sock.sendall(("HTTP/1.1 2x0 " + sec + "\r\nContent-Length: 2\r\n\r\nok").encode("latin-1")); return
            if "/badproto" in path:
                sock.sendall(("XTTP/1.1 200 " + sec + "\r\nContent-Length: 2\r\n\r\nok").encode("latin-1")); return
            if "/badlen" in path:
                sock.sendall(("HTTP/1.1 200 OK\r\nContent-Length: " + sec + "\r\n\r\nok").encode("latin-1")); return
            if "/fold" in path:
                half = len(sec)//2
                sock.sendall(("HTTP/1.1 200 OK\r\nX-Fold: " + sec[:half] + "\r\n " + sec[half:] + "\r\nContent-Length: 2\r\n\r\nok").encode("latin-1")); continue
            if "/reenc" in path:
                # the server re-encodes the query the way many frameworks build canonical URLs
                variants = [urllib.parse.quote(qv, safe="/"), urllib.parse.quote(qv, safe="/+=:"), urllib.parse.quote_plus(qv).lower(), urllib.parse.quote(qv).replace("%2F","%2f").replace("%2B","%2b").replace("%3D","%3d")]
                out = "HTTP/1.1 301 Moved\r\n" + "".join("X-V%d: https://svc.test/x?key=%s\r\n" % (i, v) for i, v in enumerate(variants)) + "Location: /canon?key=" + variants[0] + "\r\nContent-Length: 0\r\n\r\n"
                sock.sendall(out.encode("latin-1")); continue
            if "/upgrade" in path:
                sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + hd.get("upgrade", "x").encode() + b"\r\n\r\n")
                sock.settimeout(5)
                try:
                    data = sock.recv(65536)
                except Exception:
                    data = b""
                rec({"conn": c, "raw_after_upgrade": data.decode("latin-1")})
                sock.sendall(b"raw-ack"); return
            if "/drop" in path:
                sock.close(); return
            if "/slow" in path:
                time.sleep(float(urllib.parse.parse_qs(q).get("s", ["3"])[0]))
            if "/echo" in path:
                allv = " | ".join(f"{k}={v}" for k, v in hdrs) + " | q=" + q
                dec = urllib.parse.unquote(q)
                rh = [("Content-Type", "text/plain")]
                for k, v in hdrs: rh.append(("X-Echo-" + k, v))
                rh.append(("X-Echo-Query", q))
                rh.append(("X-Echo-Query-Dec", dec))
                rh.append(("Set-Cookie", "s=" + (hd.get("authorization", "") or q).replace(" ", "_") + "; Path=/"))
                rh.append(("Location", "https://elsewhere.test/cb?" + q + "&auth=" + urllib.parse.quote(hd.get("authorization", ""))))
                rh.append(("WWW-Authenticate", 'Basic realm="' + hd.get("authorization", "") + '"'))
                b64 = base64.b64encode((hd.get("authorization", "") + q).encode()).decode()
                rh.append(("X-Echo-B64", b64))
                rh.append(("X-Echo-B64url", base64.urlsafe_b64encode(hd.get("authorization", "").encode()).decode().rstrip("=")))
                rh.append(("X-Echo-Hex", hd.get("authorization", "").encode().hex()))
                rh.append(("X-Echo-Rev", hd.get("authorization", "")[::-1]))
                rh.append(("Trailer", "X-Trail"))
                rh.append(("Transfer-Encoding", "chunked"))
                reason = "OK " + hd.get("authorization", "") + " " + q
                out = ("HTTP/1.1 200 " + reason.replace("\r", "").replace("\n", "") + "\r\n").encode("latin-1")
                for k, v in rh: out += (k + ": " + v + "\r\n").encode("latin-1")
                out += b"\r\n"
                bd = ("echo " + allv + "\n").encode("latin-1")
                out += b"%x\r\n" % len(bd) + bd + b"\r\n0\r\nX-Trail: " + (hd.get("authorization", "") + " " + q).encode("latin-1") + b"\r\n\r\n"
                sock.sendall(out)
                if hd.get("connection", "").lower() == "close": return
                continue
            if "/redir" in path:
                to = urllib.parse.parse_qs(q).get("to", ["/landing?" + q])[0]
                sock.sendall(("HTTP/1.1 302 Found\r\nLocation: " + to + "\r\nContent-Length: 0\r\n\r\n").encode("latin-1"))
                continue
            bd = b"ok " + method.encode() + b" " + target.encode("latin-1") + b"\n"
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(bd) + bd)
            if hd.get("connection", "").lower() == "close": return
    except Exception as e:
        rec({"conn": c, "error": repr(e)})
    finally:
        try: sock.close()
        except Exception: pass
def serve(port, tls, addr="127.0.0.1"):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port)); s.listen(128)
    ctx = None
    if tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(CERT, KEY)
        ctx.set_alpn_protocols(["http/1.1"])
    while True:
        c, _ = s.accept()
        def run(c=c):
            if ctx:
                try: c = ctx.wrap_socket(c, server_side=True)
                except Exception as e: rec({"tls_error": repr(e)}); c.close(); return
            handle(c, tls)
        threading.Thread(target=run, daemon=True).start()
# the same server also answers on 127.0.0.2 (a second front address, like a CDN's)
threading.Thread(target=serve, args=(HP, False), daemon=True).start()
threading.Thread(target=serve, args=(SP, True, "127.0.0.2"), daemon=True).start()
serve(SP, True)
