#!/bin/bash
# 07 (phase 1, host CPU): the budgets count versions beyond the final tree
# (5,000), their blob bytes (256 MiB) and the diff listing (64 MiB), but
# each commit is scanned "with that commit's tree around it". C0 adds
# vendor/ with NF small files that stay in the final tree (review shows
# them, so they are no history versions); then NC commits each change one
# line of src/extension.ts (one small version each, far under every
# budget); the last puts it back. Objects: a few MB. Got through = apply
# takes over LIMIT s (default 120) of host CPU for this, or review does.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"
MODE=${1:-direct}; NF=${NF:-20000}; NC=${NC:-990}; LIMIT=${LIMIT:-120}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
cat > "$T/gen.py" <<'P'
import sys, os, subprocess, time
nf, nc = int(sys.argv[1]), int(sys.argv[2])
head = subprocess.check_output(["git", "rev-parse", "HEAD"]).decode().strip()
out = sys.stdout.buffer; t = int(time.time())
def blob(mark, data):
    out.write(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
def commit(msg, frm, ops):
    global t; t += 1
    out.write(b"commit refs/heads/master\ncommitter a <a@x> %d +0000\ndata %d\n%s\n" % (t, len(msg), msg))
    if frm: out.write(b"from %s\n" % frm)
    for o in ops: out.write(o + b"\n")
blob(1, b"module.exports = 1;\n")
commit(b"vendor deps", head.encode(), [b"M 100644 :1 vendor/m%03d/f%05d.js" % (i // 1000, i) for i in range(nf)])
orig = open("src/extension.ts", "rb").read()
for c in range(nc):
    blob(10 + c, orig + b"// step %d\n" % c)
    commit(b"step %d" % c, None, [b"M 100644 :%d src/extension.ts" % (10 + c)])
blob(5, orig); commit(b"done", None, [b"M 100644 :5 src/extension.ts"])
out.write(b"done\n")
P
airlock exec -i "$N" -- sh -c 'cat > /tmp/gen.py' < "$T/gen.py" || exit 2
ag "python3 /tmp/gen.py $NF $NC | git fast-import --quiet --done && git reset -q --hard master && git count-objects -vH | grep size-pack && git log --oneline | wc -l"
sleep 0.5
s=$(date +%s); rv "" 600; echo "  review took $(( $(date +%s) - s )) s; listed $(listed | wc -w) paths"
s=$(date +%s); timeout $((LIMIT * 3)) airlock apply "$N" --branch t-wide >"$T/apply.log" 2>&1; ARC=$?; d=$(( $(date +%s) - s ))
echo "  apply rc=$ARC after $d s: $(tail -2 "$T/apply.log" | cut -c1-300)"
[ "$d" -gt "$LIMIT" ] && { echo "  apply took over $LIMIT s"; R=1; }
finish
