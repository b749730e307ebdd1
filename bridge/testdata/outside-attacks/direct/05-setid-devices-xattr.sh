#!/bin/bash
# 05: set-uid/set-gid files, device nodes, xattrs (security.capability) in the folder.
SB=atk05
. "$(dirname "$0")/lib.sh"
mkrepo; up
ax bash -c 'cd /workspace; cp /bin/true su1; chmod 4755 su1; chmod 2755 su1; mkdir sgd; chmod 2775 sgd
python3 -c "import os;os.chmod(\"su1\",0o6755)"; mknod dev c 1 3; python3 -c "import os;os.mknod(\"dev2\",0o20666,os.makedev(1,3))"
python3 -c "import os;os.mknod(\"blk\",0o60666,os.makedev(7,0))"
python3 -c "import os;os.setxattr(\"su1\",\"security.capability\",b\"\\x01\\x00\\x00\\x02\\xff\\xff\\xff\\xff\\x00\\x00\\x00\\x00\\xff\\xff\\xff\\xff\\x00\\x00\\x00\\x00\")"
python3 -c "import os;os.setxattr(\"su1\",\"user.x\",b\"1\")"; true' 2>/dev/null
BAD=$(find "$WS" -path "$WS/.git" -prune -o \( -perm /6000 -o -type b -o -type c \) -print)
CAP=$(getfattr -d -m - "$WS/su1" 2>/dev/null | grep -v '^#' | grep .)
echo "setid/devices on host: ${BAD:-none}; xattrs: ${CAP:-none}"
[ -n "$BAD$CAP" ] && succeeded
defended
