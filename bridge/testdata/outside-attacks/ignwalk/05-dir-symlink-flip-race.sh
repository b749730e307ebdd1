#!/bin/bash
# 05: races between git's listing and the Go walk. During 6 reviews the
# agent flips, as fast as the gate lets it, (a) node_modules itself and
# (b) node_modules/pkg030 between the real directory and an absolute
# symlink to a host folder full of same-named files ($T/host: secret.js in
# every directory), and (c) node_modules/pkg031/lib between a directory and
# a regular file. git lists "! node_modules/" and the walk opens it later;
# openat O_NOFOLLOW per level must keep the walk in the folder. Defended =
# no review fails or hangs, no path from $T/host (secret.js) is ever
# listed, and a quiet review afterwards lists the agent's new file
# node_modules/pkg030/lib/new.js.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct
mkdir -p "$T/host/lib/sub" && for d in "$T/host" "$T/host/lib" "$T/host/lib/sub"; do echo "host secret" > "$d/secret.js"; done
up_sandbox
airlock exec "$N" -- sh -c 'echo "require(\"child_process\")" > /workspace/node_modules/pkg030/lib/new.js' || exit 2
airlock exec "$N" -- python3 -c '
import os, time, sys
os.chdir("/workspace")
host = sys.argv[1]
os.symlink(host, "nm.link"); os.symlink(host, "node_modules/p30.link")
open("node_modules/p31.file", "w").write("x\n")
end = time.time() + 14; n = 0
while time.time() < end:
    os.rename("node_modules/pkg030", "node_modules/p30.real"); os.rename("node_modules/p30.link", "node_modules/pkg030")
    os.rename("node_modules/pkg031/lib", "node_modules/p31.dir"); os.rename("node_modules/p31.file", "node_modules/pkg031/lib")
    os.rename("node_modules", "nm.real"); os.rename("nm.link", "node_modules")
    time.sleep(0.001)
    os.rename("node_modules", "nm.link"); os.rename("nm.real", "node_modules")
    os.rename("node_modules/pkg031/lib", "node_modules/p31.file"); os.rename("node_modules/p31.dir", "node_modules/pkg031/lib")
    os.rename("node_modules/pkg030", "node_modules/p30.link"); os.rename("node_modules/p30.real", "node_modules/pkg030")
    n += 1
print("agent: %d flips" % n)
' "$T/host" >"$T/agent.log" 2>&1 & AP=$!
sleep 1; fails=0
for i in 1 2 3 4 5 6; do
	rv >/dev/null; case "$RRC" in 0|3) ;; *) fails=$((fails+1)); echo "review $i rc=$RRC: $(tail -1 "$T/review.err")";; esac
	echo "review $i rc=$RRC: $(listed | tr ' ' '\n' | grep -c .) paths: $(listed | cut -c1-150)"
	listed | tr ' ' '\n' | grep secret && { echo "review $i listed a host file"; R=1; }
done
wait "$AP"; cat "$T/agent.log"; [ -d node_modules/pkg030/lib ] && [ ! -L node_modules ] || { echo "flip left things swapped: setup"; exit 2; }
rv; echo "quiet review: $(listed | tr ' ' '\n' | grep -c .) paths"
is_listed node_modules/pkg030/lib/new.js || { echo "MISSED node_modules/pkg030/lib/new.js"; R=1; }
[ "$fails" -le 1 ] || { echo "$fails of 6 reviews failed"; R=1; }
finish
