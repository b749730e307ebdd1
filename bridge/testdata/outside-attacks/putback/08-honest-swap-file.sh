#!/bin/bash
# 08 (noise): an editor's swap file. The agent (or the user's editor on
# the host) opens src/extension.ts in vim and quits without a change:
# src/.extension.ts.swp is created and removed. Nothing is listed in src/,
# so PUT-BACK (b) flags the directory, and every directory is high (a
# folder of plain TypeScript). The first review of the sandbox is enough
# (no earlier review needed). Got through (noise) = any PUT-BACK high.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
sleep 5.5 # the sandbox's own start is out of the window
honest 'echo swap > src/.extension.ts.swp && sleep 0.2 && rm src/.extension.ts.swp'
sleep 1; rv >/dev/null
noise_verdict
finish
