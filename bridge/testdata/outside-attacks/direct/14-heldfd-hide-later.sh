#!/bin/bash
# 14: hold descriptors on files renamed to hidden paths, wait for the user
# to write those paths on the host, then read through the descriptors.
SB=atk14
. "$(dirname "$0")/common2.sh"; . "$(dirname "$0")/lib.sh"
mkrepo; up
OUT=$TOP/held.out
ax python3 -c '
import os,time; os.chdir("/workspace")
fds=[]
for tgt in ["keys/prod.txt","secret.txt"]:
    fd=os.open("h%d"%len(fds),os.O_RDWR|os.O_CREAT,0o644); fds.append(fd)
    try: os.makedirs("keys",exist_ok=True)
    except Exception as e: print(e)
    try: os.rename("h%d"%(len(fds)-1),tgt); print("renamed",tgt)
    except Exception as e: print(tgt,e)
print("READY", flush=True)
time.sleep(8)
for fd in fds: print("READ",os.pread(fd,100,0))
' >"$OUT" 2>&1 &
for i in $(seq 60); do grep -q READY "$OUT" 2>/dev/null && break; sleep 0.5; done
grep -q READY "$OUT" || { cat "$OUT"; setup_error "the holder did not start"; }
mkdir -p "$WS/keys"; echo SECRET > "$WS/keys/prod.txt"; echo SECRET > "$WS/secret.txt"
wait
sed 's/^/  inside: /' "$OUT"
grep -q "^READ" "$OUT" || setup_error "the holder never read"
grep -q SECRET "$OUT" && succeeded
defended
