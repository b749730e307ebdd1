#!/bin/bash
# 17: symlinks to /dev/zero, /dev/tty and a host FIFO, unix sockets named
# .gitignore/.gitattributes, a 300-deep directory: host git status and
# review must still finish.
SB=atk17
. "$(dirname "$0")/common2.sh"; . "$(dirname "$0")/lib.sh"
mkrepo; up
FIFO=$TOP/fifo17; mkfifo "$FIFO"
ax python3 -c '
import os,socket,sys
os.chdir("/workspace")
for n,t in [("z","/dev/zero"),("tty","/dev/tty"),("ff",sys.argv[1]),("sub/.gitattributes","/dev/zero"),("lp","lp")]:
    try: os.makedirs(os.path.dirname(n) or ".",exist_ok=True); os.symlink(t,n)
    except Exception as e: print(n,e)
for n in [".gitignore","sub/.gitignore",".gitattributes"]:
    try: s=socket.socket(socket.AF_UNIX); s.bind(n); print("bound",n)
    except Exception as e: print(n,e)
p="deep"
for i in range(300): p+="/d"
try: os.makedirs(p)
except Exception as e: print("deep",e)
open("Makefile.tmp","w").write("x")
' "$FIFO" 2>&1 | sed 's/^/  inside: /'
[ -L "$WS/z" ] && [ -f "$WS/Makefile.tmp" ] || setup_error "the specials were not made"
(cd "$WS" && timeout 20 git status >/dev/null 2>&1); [ $? = 124 ] && { echo "git status hung"; succeeded; }
(cd "$WS/sub" && timeout 20 git status >/dev/null 2>&1); [ $? = 124 ] && { echo "git status in sub/ hung"; succeeded; }
timeout 40 airlock review "$SB" >/dev/null 2>&1; [ $? = 124 ] && { echo "review hung"; succeeded; }
timeout 40 airlock review "$SB" --json >/dev/null 2>&1; [ $? = 124 ] && { echo "review --json hung"; succeeded; }
defended
