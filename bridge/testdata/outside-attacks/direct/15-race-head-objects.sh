#!/bin/bash
# 15: 150 races of HEAD against objects/ in a directory that has refs/, so
# no single check sees both.
SB=atk15
. "$(dirname "$0")/common2.sh"; . "$(dirname "$0")/lib.sh"
mkrepo; up
ax python3 -c '
import os,threading; os.chdir("/workspace")
for i in range(150):
    d="race%d"%i; os.mkdir(d); os.mkdir(d+"/refs")
    def a():
        try: open(d+"/HEAD","w").write("ref: refs/heads/main\n")
        except Exception: pass
    def b():
        try: os.mkdir(d+"/objects")
        except Exception: pass
    th=[threading.Thread(target=a),threading.Thread(target=b)]; [x.start() for x in th]; [x.join() for x in th]
' 2>&1 | sed 's/^/  inside: /'
[ -d "$WS/race149/refs" ] || setup_error "the race directories were not made"
for d in "$WS"/race*; do [ -e "$d/HEAD" ] && [ -e "$d/objects" ] && { echo "both in $d"; succeeded; }; done
defended
