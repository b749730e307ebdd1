#!/bin/bash
# 23: the gate finds a node's host path by its place in go-fuse's tree
# (node.rel = Inode.Path(nil)). A file that is open but unlinked has no
# parent left, and Path(nil) of an orphan is "": the gate then applies
# fchmod/futimens on that descriptor to the FOLDER ROOT (and ftruncate fails
# with EINVAL, which programs that unlink their temp files then resize them
# hit). Defended: the root's mode and mtime are unchanged and ftruncate works.
SB=atk23
. "$(dirname "$0")/lib.sh"
mkrepo; up
chmod 755 "$WS"; touch -d '2020-01-02 03:04:05' "$WS"
before=$(stat -c '%a %Y' "$WS")
ax python3 -c '
import os
fd = os.open("/workspace/tmpx", os.O_RDWR | os.O_CREAT, 0o600)
os.write(fd, b"hello"); os.unlink("/workspace/tmpx")
for name, f in (("ftruncate", lambda: os.ftruncate(fd, 2)), ("fchmod", lambda: os.fchmod(fd, 0o777)), ("futimens", lambda: os.utime(fd, (0, 0)))):
    try: f(); print(name, "ok")
    except OSError as e: print(name, e)
' 2>&1 | sed 's/^/  inside: /'
after=$(stat -c '%a %Y' "$WS")
echo "folder root mode/mtime before: $before, after: $after"
[ "$before" != "$after" ] && succeeded
defended
