#!/bin/bash
# 20 (phase 2): apply's history scan holds all of `git diff-tree --stdin
# -m --root` over base..snapshot in the bridge's memory (history.go
# commitDiffs: hostgit.Cmd buffers stdout unbounded, then bytes.Split
# makes two slices per entry). The 1,000-commit cap bounds commits, not
# what each commit's diff lists. The agent makes two trees that differ
# in NP paths (4,000 unless set) and 996 commits alternating between
# them, then returns to the base tree: its repository grows by two trees,
# two blobs and 996 commit objects (well under 1 MB); review lists
# nothing. apply's diff-tree emits NP x 996 entries (~100 bytes each).
# Got through = the bridge's peak RSS grows by more than GROW MB (300
# unless set) during apply, with no refusal; it scales linearly with NP
# (NP=40000 is ~10x, several GB, no bound in the code).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; NP=${NP:-4000}; GROW=${GROW:-300}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
ag "python3 - $NP <<'P' | git fast-import --quiet && git reset -q --hard master && echo \"agent: \$(git rev-list --count HEAD) commits, objects \$(du -sh .git/objects | cut -f1)\"
import subprocess, sys
np = int(sys.argv[1]); w = sys.stdout.buffer
head = subprocess.check_output(['git', 'rev-parse', 'HEAD']).decode().strip()
# blob marks 1 and 2; then 996 commits: odd ones give every gen/ path blob 1, even ones blob 2
w.write(b'blob\nmark :1\ndata 2\na\n\nblob\nmark :2\ndata 2\nb\n\n')
for i in range(996):
    w.write(b'commit refs/heads/master\ncommitter a <a@x> 1700000000 +0000\ndata 3\ngen\n')
    if i == 0: w.write(('from %s\n' % head).encode())
    m = b':1' if i % 2 == 0 else b':2'
    w.write(b''.join(b'M 100644 %s gen/%05d.txt\n' % (m, j) for j in range(np)))
    w.write(b'\n')
w.write(b'commit refs/heads/master\ncommitter a <a@x> 1700000000 +0000\ndata 5\ntidy\nD gen\n\n')
P"
sleep 0.5; rv 300; echo "  listed: [$(listed)]"
H0=$(bridge_hwm | awk '{print $2}'); echo "  bridge VmHWM before apply: ${H0:-?} kB"
S=$(date +%s); airlock apply "$N" --branch t-mem >"$T/apply.log" 2>&1; ARC=$?; BR=t-mem
H1=$(bridge_hwm | awk '{print $2}'); echo "  apply rc=$ARC after $(( $(date +%s) - S )) s: $(tail -1 "$T/apply.log" | cut -c1-200)"
echo "  bridge VmHWM after apply: ${H1:-?} kB"
[ -n "$H0" ] && [ -n "$H1" ] || { echo "no bridge memory figures"; exit 2; }
if [ $(( (H1 - H0) / 1024 )) -gt "$GROW" ]; then echo "  the bridge grew by $(( (H1 - H0) / 1024 )) MB for a history of a few hundred kB"; R=1; fi
finish
