#!/bin/bash
# Review reads the sandbox's .git files (hooks, config, info/) over SFTP.
# The agent makes some of them endless: FIFOs fed by `cat /dev/zero`
# (hooks/post-checkout, info/attributes, config.worktree) and a symlink to
# /dev/zero (hooks/pre-push). Review must finish within 200 s, flag them,
# and keep the bridge's memory bounded. Got through when review hangs, the
# bridge grows by more than 256 MiB, or the planted hooks are not flagged.
. "$(dirname "$0")/lib.sh"
need_cluster2
write_sandbox "$N"; up_sandbox "$N"
bp=$(bridge_pid) || setup_error "no bridge"
r0=$(rss_kib "$bp")
(timeout 260 airlock exec "$N" -- sh -c 'cd /workspace/.git && mkdir -p hooks info && mkfifo hooks/post-checkout info/attributes config.worktree && ln -s /dev/zero hooks/pre-push || exit 1
for f in hooks/post-checkout info/attributes config.worktree; do (while :; do cat /dev/zero > $f; done) & done; sleep 240' >/dev/null 2>&1 &)
sleep 5
inside "$N" 'test -p /workspace/.git/hooks/post-checkout' || setup_error "plant"
peak=$r0
( while sleep 1; do r=$(rss_kib "$bp"); [ "$r" -gt "$(cat "$T/peak" 2>/dev/null || echo 0)" ] && echo "$r" > "$T/peak"; done ) & mon=$!
s=$(date +%s); timeout 200 airlock review "$N" > "$T/rev" 2>&1; rc=$?; took=$(( $(date +%s) - s ))
kill $mon 2>/dev/null; peak=$(cat "$T/peak" 2>/dev/null || echo "$r0")
head -c 3000 "$T/rev" | cut -c1-160 | head -25
echo "review rc $rc in ${took}s; bridge RSS ${r0} -> peak ${peak} KiB"
bad=0
[ "$rc" = 124 ] && { echo "review hung"; bad=1; }
[ $(( peak - r0 )) -gt 262144 ] && { echo "bridge grew over 256 MiB"; bad=1; }
grep -q 'hooks/post-checkout' "$T/rev" || { echo "FIFO hook not shown"; bad=1; }
result $bad
