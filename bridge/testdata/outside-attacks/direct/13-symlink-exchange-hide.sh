#!/bin/bash
# 13: put a symlink (or an exchanged directory) where a hidden glob's
# directory will be, then the user writes a secret there on the host.
SB=atk13
. "$(dirname "$0")/common2.sh"; . "$(dirname "$0")/lib.sh"
mkrepo; up
ax python3 -c '
import ctypes,os; libc=ctypes.CDLL(None,use_errno=True); os.chdir("/workspace")
os.makedirs("pub",exist_ok=True); os.symlink("pub","x"); os.makedirs("kk",exist_ok=True)
for a,b,fl in [("x","keys",2),("x","keys",0),("kk","keys",0),("x","kk",0)]:
    r=libc.renameat2(-100,a.encode(),-100,b.encode(),fl); print(a,b,fl,r,os.strerror(ctypes.get_errno()))
' 2>&1 | sed 's/^/  inside: /'
[ -d "$WS/pub" ] || setup_error "pub/ was not made"
if [ -L "$WS/keys" ]; then echo "keys is a symlink on the host"; succeeded; fi
mkdir -p "$WS/keys" && echo SECRET > "$WS/keys/prod.txt"
OUT=$(ax sh -c 'cat /workspace/pub/prod.txt /workspace/keys/prod.txt /workspace/kk/prod.txt 2>/dev/null')
echo "$OUT" | grep -q SECRET && succeeded
defended
