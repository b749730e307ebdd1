#!/bin/bash
# 06 (phase 1): host work for the agent's history, paid by the host. The
# agent writes 120 commits (under apply's 1,000-commit cap), each with a
# different 60 MB version of src/big.txt (one byte differs; git deltas
# and zlib make the whole history ~3 MB in the sandbox), then deletes the
# file: the final tree is clean and review lists nothing. apply reads
# every intermediate version (each under the 64 MiB scan limit) on the
# host: 7 GB through delta chains. Got through = apply still busy after
# LIMIT seconds (60 unless set; NC sets the commit count) on a history
# that costs the sandbox ~1 MB of disk; the host's CPU is what the bridge
# spends (review's capture pays a share too). With 1,000 commits
# and several such files per commit it is hours.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; LIMIT=${LIMIT:-60}; NC=${NC:-120}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
S=$(date +%s)
ag "python3 - $NC <<'P' | git fast-import --quiet && git reset -q --hard master && echo \"agent: \$(git rev-list --count HEAD) commits, objects \$(du -sh .git/objects | cut -f1)\"
import subprocess, sys
head = subprocess.check_output(['git', 'rev-parse', 'HEAD']).decode().strip()
w = sys.stdout.buffer; big = b'a' * (60 << 20)
for i in range(int(sys.argv[1])):
    c = b'// %d\n' % i + big + b'\n'
    w.write(b'commit refs/heads/master\ncommitter a <a@x> 1700000000 +0000\ndata 3\nwip\n')
    if i == 0: w.write(('from %s\n' % head).encode())
    w.write(b'M 100644 inline src/big.txt\ndata %d\n' % len(c) + c + b'\n')
w.write(b'commit refs/heads/master\ncommitter a <a@x> 1700000000 +0000\ndata 5\ntidy\nD src/big.txt\n\n')
P"
echo "agent side took $(( $(date +%s) - S )) s"; sleep 0.5
S=$(date +%s); rv 300; echo "  review took $(( $(date +%s) - S )) s, listed: [$(listed)]"
S=$(date +%s); timeout "$LIMIT" airlock apply "$N" --branch t-dos >"$T/apply.log" 2>&1; ARC=$?
echo "  apply rc=$ARC after $(( $(date +%s) - S )) s: $(tail -2 "$T/apply.log")"
if [ "$ARC" = 124 ]; then echo "  apply still working after $LIMIT s on a history of ~0.5 MB of objects"; R=1; fi
finish
