#!/bin/bash
# 11: RENAME_EXCHANGE a file of the agent's with protected files and
# directories (renameat2 flag 2): each would swap the agent's content in.
SB=atk11
. "$(dirname "$0")/common2.sh"; . "$(dirname "$0")/lib.sh"
mkrepo; up
ax python3 -c '
import ctypes,os; libc=ctypes.CDLL(None,use_errno=True); os.chdir("/workspace")
open("evil","w").write("PWNED\n"); os.makedirs("p2",exist_ok=True); open("p2/f","w").write("PWNED\n")
for a,b in [("evil","Makefile"),("p2","prot"),("evil","prot/f"),("evil","top/mid/deep/x")]:
    r=libc.renameat2(-100,a.encode(),-100,b.encode(),2); print(a,b,r,os.strerror(ctypes.get_errno()))
' 2>&1 | sed 's/^/  inside: /'
grep -q PWNED "$WS/evil" || grep -q PWNED "$WS/Makefile" || setup_error "the agent's file was not written"
grep -q PWNED "$WS/Makefile" "$WS/prot/f" "$WS/top/mid/deep/x" 2>/dev/null && succeeded
defended
