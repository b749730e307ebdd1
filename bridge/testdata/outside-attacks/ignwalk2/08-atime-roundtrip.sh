#!/bin/bash
# 08: compatibility of the gate's atime-as-mtime (3661c99b): a tool in
# the sandbox sets a file's access time explicitly (os.utime / touch -a /
# cp -p / tar / rsync -t) and reads it back, as test suites of file tools
# and "read since modified" checks (mail notifiers, tmp cleaners, make -like
# caches keyed on atime) do. Outside /workspace (tmpfs) the round trip
# holds; in /workspace it reads back the mtime. Got through (low,
# compatibility) = the atime a tool set in /workspace does not read back.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"
NPKG=2 mkproj; write_sandbox direct; up_sandbox
out=$(airlock exec "$N" -- python3 -c '
import os
for d in ("/tmp", "/workspace"):
    p = d + "/at.txt"; open(p, "w").write("x")
    os.utime(p, ns=(1_000_000_000 * 10**9, 1_500_000_000 * 10**9))
    st = os.stat(p)
    print(d, "atime", st.st_atime_ns // 10**9, "mtime", st.st_mtime_ns // 10**9, "ok" if st.st_atime_ns == 1_000_000_000 * 10**9 else "MISMATCH")
    os.unlink(p)
' 2>&1) || { echo "$out"; exit 2; }
echo "$out"
echo "$out" | grep -q "^/tmp .* ok" || { echo "round trip fails outside the gate too: setup"; exit 2; }
echo "$out" | grep -q "^/workspace .*MISMATCH" && { echo "an atime set in /workspace reads back as the mtime"; R=1; }
finish
