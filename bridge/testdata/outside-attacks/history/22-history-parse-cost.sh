#!/bin/bash
# 22 (phase 2): the other half of 06, paid in the scanner instead of git.
# Every history version is parsed like the final tree's ("JSON with no
# depth limit"): a 3.8 MB package.json of 1.9 million nested arrays costs
# the bridge ~1.5 s and ~300 MB per parse (a final-tree review of two
# such files: 3 s, peak RSS 65 -> 390 MB). The agent commits NC (60 unless
# set) versions, each one byte different (deltas make it ~100 kB in the
# sandbox), then restores the original package.json: review lists
# nothing. apply parses each version in turn. Got through = apply still
# busy after LIMIT s (60 unless set); at the 1,000-commit cap, times
# several such paths per commit, that is hours of a host core.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; LIMIT=${LIMIT:-60}; NC=${NC:-60}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
S=$(date +%s)
ag "python3 - $NC <<'P' | git fast-import --quiet && git reset -q --hard master && echo \"agent: \$(git rev-list --count HEAD) commits, objects \$(du -sh .git/objects | cut -f1)\"
import subprocess, sys
head = subprocess.check_output(['git', 'rev-parse', 'HEAD']).decode().strip()
orig = subprocess.check_output(['git', 'show', 'HEAD:package.json'])
w = sys.stdout.buffer; n = 1900000
for i in range(int(sys.argv[1])):
    c = b'{\"name\":\"p\",\"v\":%d,\"a\":' % i + b'[' * n + b']' * n + b'}\n'
    w.write(b'commit refs/heads/master\ncommitter a <a@x> 1700000000 +0000\ndata 3\nwip\n')
    if i == 0: w.write(('from %s\n' % head).encode())
    w.write(b'M 100644 inline package.json\ndata %d\n' % len(c) + c + b'\n')
w.write(b'commit refs/heads/master\ncommitter a <a@x> 1700000000 +0000\ndata 5\ntidy\nM 100644 inline package.json\ndata %d\n' % len(orig) + orig + b'\n')
P"
echo "agent side took $(( $(date +%s) - S )) s"; sleep 0.5
S=$(date +%s); rv 300; echo "  review took $(( $(date +%s) - S )) s, listed: [$(listed)]"
S=$(date +%s); timeout "$LIMIT" airlock apply "$N" --branch t-parse >"$T/apply.log" 2>&1; ARC=$?
echo "  apply rc=$ARC after $(( $(date +%s) - S )) s: $(tail -2 "$T/apply.log" | cut -c1-200); bridge peak $(bridge_hwm | awk '{print $2}') kB"
if [ "$ARC" = 124 ]; then echo "  apply still working after $LIMIT s"; R=1; fi
finish
