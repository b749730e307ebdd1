#!/bin/bash
# 05: `airlock up` now reads the file's sandbox name only when it is
# cancelled (upName -> config.Load, which follows symlinks and reads to
# EOF; `up` itself refuses a file that is not a regular one). In direct
# mode the agent writes the host folder, symlinks included. Sandbox $N
# (direct) is running; the user runs `airlock up -f second.hcl` for a
# second sandbox in that folder (clone of ~20,000 files, a few seconds);
# meanwhile the agent replaces second.hcl with a symlink to /dev/zero;
# the user presses Ctrl-C. Got through = the CLI reads /dev/zero (its
# memory grows to the 2 GB ulimit set here / it is killed) or is still
# running 8 s after the second Ctrl-C.
. "$(dirname "$0")/../lib.sh"
mkdir -p "$T/repo" && cd "$T/repo" && git init -q || exit 2
mkdir big && for d in $(seq 1 100); do mkdir big/$d; for f in $(seq 1 200); do echo $d$f > big/$d/$f; done; done
cat > second.hcl <<H
sandbox "y$N" {
  backend = "namespace"
  workspace { mode = "clone" }
}
H
write_sandbox direct; up_sandbox
airlock exec $N -- ln -s /dev/zero /workspace/zz || exit 2
( ulimit -v 2000000; exec airlock up -f "$T/repo/second.hcl" --yes ) >"$T/up2.log" 2>&1 & P=$!
sleep 0.8
airlock exec $N -- mv -f /workspace/zz /workspace/second.hcl || exit 2
ls -l second.hcl
kill -0 $P 2>/dev/null || { echo "up of y$N finished before the swap; rerun"; cat "$T/up2.log"; exit 2; }
kill -INT $P; sleep 3
rss=$(awk '/VmRSS/{print $2}' /proc/$P/status 2>/dev/null); echo "3 s after Ctrl-C: CLI VmRSS ${rss:-gone} kB"
kill -INT $P 2>/dev/null; sleep 8
if kill -0 $P 2>/dev/null; then echo "CLI still running 8 s after the second Ctrl-C"; R=1; kill -9 $P; fi
wait $P; rc=$?; echo "CLI exit $rc"; grep -v '^\s\|^goroutine\|^$' "$T/up2.log" | head -4
echo "stack: $(grep -o "cli\.upName\|config\.Load\|os\.ReadFile" "$T/up2.log" | sort -u | tr "\n" " ")"
[ "${rss:-0}" -gt 500000 ] && { echo "CLI read the symlinked /dev/zero"; R=1; }
grep -q 'out of memory\|fatal error' "$T/up2.log" && { echo "CLI died reading /dev/zero"; R=1; }
airlock rm --force "y$N" >/dev/null 2>&1
finish
