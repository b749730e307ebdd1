#!/bin/bash
# 23: the gate finds a node's host path by its place in go-fuse's tree
# (node.rel = Inode.Path(nil)). A file that is open but unlinked has no
# parent left, and Path(nil) of an orphan is "": the gate then applies
# fchmod/futimens on that descriptor to the FOLDER ROOT (and ftruncate fails
# with EINVAL, which programs that unlink their temp files then resize them
# hit). Defended: the root's mode is unchanged and its mtime is not the
# attack's 1970 (creating and unlinking tmpx in it rightly moves it to now),
# and ftruncate works.
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
set -- $after
[ "$1" != 755 ] || [ "$2" = 0 ] && succeeded
ax python3 -c '
import os
fd = os.open("/workspace/tmpy", os.O_RDWR | os.O_CREAT, 0o600)
os.write(fd, b"hello"); os.unlink("/workspace/tmpy"); os.ftruncate(fd, 2)' || succeeded
defended
