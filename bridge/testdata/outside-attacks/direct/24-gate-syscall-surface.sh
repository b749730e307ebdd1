#!/bin/bash
# 24: what the sandbox can make the gate do through each FUSE operation, on a
# folder that is its own loop-mounted ext4 image (destructive ioctls never
# reach a real disk): every ioctl number of the file-system families
# (EXT4_IOC_SHUTDOWN, FS_IOC_SETFSLABEL, FS_IOC_SETFLAGS immutable, FIFREEZE,
# FITRIM, EXT4_IOC_GET_ES_CACHE ...) on a file and a directory, flock/POSIX/
# OFD locks and leases seen from the host, xattrs and ACLs, unix sockets
# across the boundary, fallocate collapse/insert, random seekdir offsets
# leaking hidden names, and the git-directory checks while the gate is out
# of descriptors. Defended: the image is clean, unlabelled, not shut down,
# no host lock, no xattr, no connection, no hidden name, no HEAD+objects.
SB=atk24
. "$(dirname "$0")/lib.sh"
command -v mkfs.ext4 >/dev/null || setup_error "mkfs.ext4 missing"
IMG=$TOP/img; truncate -s 64M "$IMG" && mkfs.ext4 -q -F "$IMG" && mount -o loop "$IMG" "$WS" || setup_error "loop mount"
trap 'cd /; timeout 90 airlock rm --force "$SB" >/dev/null 2>&1; timeout 30 airlock bridge -stop >/dev/null 2>&1; umount "$WS" 2>/dev/null || umount -l "$WS"; rm -rf "$TOP"' EXIT
HIDE='"secret.txt"'
mkrepo
mkdir -p "$WS/big"; for i in $(seq 1 400); do : > "$WS/big/f$i"; done; echo HOSTSECRET > "$WS/big/secret.txt"
up
ax python3 - > "$TOP/inside.log" 2>&1 <<'PY' &
import fcntl, os, errno, struct, socket, time, ctypes
W = "/workspace"; bad = []
f = os.open(W + "/probe", os.O_RDWR | os.O_CREAT, 0o644); os.write(f, b"x" * 8192)
d = os.open(W, os.O_RDONLY)
for fd in (f, d):
    for typ in (0x66, 0x58, 0x94, 0x15, 0x76):
        for nr in range(256):
            for dr, sz in ((0, 0), (1, 4), (1, 8), (2, 4), (2, 8), (2, 0x100), (3, 4), (3, 24), (3, 32)):
                v = (dr << 30) | (sz << 16) | (typ << 8) | nr
                try: fcntl.ioctl(fd, v, bytearray(4096), True)
                except OSError: pass
# locks held while the host looks
a = os.open(W + "/lk1", os.O_RDWR | os.O_CREAT, 0o644); fcntl.flock(a, fcntl.LOCK_EX)
b = os.open(W + "/lk2", os.O_RDWR | os.O_CREAT, 0o644); fcntl.lockf(b, fcntl.LOCK_EX)
c = os.open(W + "/lk3", os.O_RDWR | os.O_CREAT, 0o644); fcntl.fcntl(c, 37, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0) + b"\0" * 4)
for n, v in (("user.x", b"1"), ("security.capability", b"\x01\x00\x00\x02" + b"\xff" * 16), ("trusted.x", b"1")):
    try: os.setxattr(W + "/probe", n, v); bad.append("setxattr " + n)
    except OSError: pass
libc = ctypes.CDLL(None, use_errno=True)
for mode in (8, 0x20):  # collapse, insert range
    if libc.fallocate(f, mode, ctypes.c_long(0), ctypes.c_long(4096)) == 0: bad.append("fallocate mode %d" % mode)
s = socket.socket(socket.AF_UNIX)
try: s.connect(W + "/host.sock"); bad.append("connected to a host socket")
except OSError: pass
dd = os.open(W + "/big", os.O_RDONLY | os.O_DIRECTORY)
import random
for i in range(3000):
    os.lseek(dd, random.choice([random.randrange(0, 1 << 62), random.randrange(0, 5000)]), 0)
    buf = ctypes.create_string_buffer(8192)
    n = libc.syscall(217, dd, buf, 8192)
    if n > 0 and b"secret.txt" in buf.raw[:n]: bad.append("hidden name at a seekdir offset")
if "secret.txt" in os.listdir(W + "/big"): bad.append("hidden name listed")
# out of descriptors: the git-directory checks must still hold
os.makedirs(W + "/r", exist_ok=True)
held = []
try:
    while True: held.append(os.open(W + "/big", os.O_RDONLY | os.O_DIRECTORY))
except OSError: pass
print("holding", len(held), "directory handles", flush=True)
for fn in (lambda: open(W + "/r/HEAD", "w").write("ref: refs/heads/main\n"), lambda: os.mkdir(W + "/r/objects"), lambda: os.mkdir(W + "/r/refs")):
    try: fn()
    except OSError: pass
for h in held: os.close(h)
for fn in (lambda: os.mkdir(W + "/r/objects"), lambda: os.mkdir(W + "/r/refs")):
    try: fn()
    except OSError: pass
print("BAD:", bad, flush=True)
time.sleep(6)
PY
AX=$!
python3 - "$WS/host.sock" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); s.settimeout(60)
try: s.accept(); print("HOST SOCKET ACCEPTED a sandbox connection")
except Exception: pass
PY
for i in $(seq 1 120); do grep -q '^BAD:' "$TOP/inside.log" && break; sleep 1; done
grep -q '^BAD:' "$TOP/inside.log" || { cat "$TOP/inside.log"; setup_error "the probe did not finish"; }
R=0
for l in lk1 lk2 lk3; do
  python3 -c 'import fcntl,os,sys; fd=os.open(sys.argv[1],os.O_RDWR); fcntl.lockf(fd, fcntl.LOCK_EX|fcntl.LOCK_NB); fcntl.flock(fd, fcntl.LOCK_EX|fcntl.LOCK_NB)' "$WS/$l" 2>/dev/null || { echo "host lock held on $l"; R=1; }
done
wait $AX; sed 's/^/  inside: /' "$TOP/inside.log" | tail -3
grep -q "^BAD: \[\]" "$TOP/inside.log" || R=1
ls "$WS" >/dev/null 2>&1 && touch "$WS/.hostcheck" || { echo "the folder's file system is shut down"; R=1; }
L=$(dumpe2fs -h "$IMG" 2>/dev/null | sed -n 's/^Filesystem volume name: *//p')
[ "$L" = "<none>" ] || { echo "label now: $L"; R=1; }
lsattr -d "$WS/probe" "$WS" 2>/dev/null | grep -q -- '-i-' && { echo "immutable flag set"; R=1; }
[ -e "$WS/r/HEAD" ] && { [ -e "$WS/r/objects" ] || [ -e "$WS/r/refs" ]; } && { echo "HEAD beside objects/refs"; R=1; }
kill %2 2>/dev/null
timeout 90 airlock rm --force "$SB" >/dev/null 2>&1; timeout 30 airlock bridge -stop >/dev/null 2>&1; cd /
umount "$WS" || setup_error "umount"
e2fsck -fn "$IMG" >"$TOP/fsck.log" 2>&1 || { echo "e2fsck finds the image damaged:"; tail -5 "$TOP/fsck.log"; R=1; }
mount -o loop "$IMG" "$WS"
[ "$R" = 1 ] && succeeded
defended
