# mkpackidx.py DIR SIZE_MB [N]: write DIR/pack-X.pack and .idx: one 64 KiB
# base blob of zeros and N REF_DELTA blobs of SIZE_MB MiB (+i bytes) each,
# made of 1-byte copy instructions (a ~100-byte delta per object). The
# .idx is written here (the big objects' ids are hashed streaming), so no
# git process ever inflates them on this side. Prints the big blobs' ids.
import sys, zlib, hashlib, struct, os
d, mb = sys.argv[1], int(sys.argv[2]); n = int(sys.argv[3]) if len(sys.argv) > 3 else 1
base = b"\0" * 0x10000
def hdr(t, size):
    b = []; c = (t << 4) | (size & 15); size >>= 4
    while size: b.append(c | 0x80); c = size & 0x7f; size >>= 7
    b.append(c); return bytes(b)
def varint(v):
    b = []
    while True:
        c = v & 0x7f; v >>= 7
        if v: b.append(c | 0x80)
        else: b.append(c); return bytes(b)
def zsha(size):
    h = hashlib.sha1(b"blob %d\0" % size); z = b"\0" * (1 << 20)
    left = size
    while left: k = min(left, len(z)); h.update(z[:k]); left -= k
    return h.digest()
bid = hashlib.sha1(b"blob %d\0" % len(base) + base).digest()
ents = [(bid, hdr(3, len(base)) + zlib.compress(base))]
for i in range(n):
    size = mb * 1024 * 1024 + i
    ins = b"\x80" * (size // 0x10000); rem = size % 0x10000
    if rem: ins += bytes([0x80 | 0x10 | 0x20, rem & 0xff, rem >> 8]) if rem > 255 else bytes([0x80 | 0x10, rem])
    delta = varint(len(base)) + varint(size) + ins
    ents.append((zsha(size), hdr(7, len(delta)) + bid + zlib.compress(delta, 9)))
body = b"PACK" + struct.pack(">II", 2, len(ents)); offs = []
for sha, raw in ents: offs.append(len(body)); body += raw
psum = hashlib.sha1(body).digest(); body += psum
name = hashlib.sha1(b"".join(sorted(s for s, _ in ents))).hexdigest()
rows = sorted((s, zlib.crc32(raw) & 0xffffffff, o) for (s, raw), o in zip(ents, offs))
idx = b"\377tOc" + struct.pack(">I", 2)
for b in range(256): idx += struct.pack(">I", sum(1 for s, _, _ in rows if s[0] <= b))
idx += b"".join(s for s, _, _ in rows) + b"".join(struct.pack(">I", c) for _, c, _ in rows) + b"".join(struct.pack(">I", o) for _, _, o in rows)
idx += psum; idx += hashlib.sha1(idx).digest()
open(os.path.join(d, "pack-%s.pack" % name), "wb").write(body)
open(os.path.join(d, "pack-%s.idx" % name), "wb").write(idx)
for s, _ in ents[1:]: print(s.hex())
