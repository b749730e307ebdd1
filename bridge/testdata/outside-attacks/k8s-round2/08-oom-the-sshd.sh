#!/bin/bash
# The agent raises its sshd's oom_score_adj to 1000 (same uid) and fills the
# pod's memory limit, so the OOM killer takes the sshd: the container ends
# (restartPolicy Never). The host side must come out clean: the bridge says
# stopped with the reason, another sandbox keeps working, and start brings
# the same claim back. Got through when the other sandbox stops answering,
# the status lies (running), or start fails.
. "$(dirname "$0")/lib.sh"
need_cluster2
write_sandbox "$N"; up_sandbox "$N"
second_sandbox "${N}b"
inside "$N" 'echo keep > ~/keep.txt; p=$(pgrep -f "airlock-agent sshd" | head -1); echo 1000 > /proc/$p/oom_score_adj && cat /proc/$p/oom_score_adj; perl -e "\$x=\"x\" x (3*1024**3)"' 2>&1 | head -3
for _ in $(seq 30); do
  ph=$(kc get pod "airlock-$N" -o jsonpath='{.status.phase} {.status.containerStatuses[0].state.terminated.reason}')
  airlock status "$N" > "$T/st" 2>&1; grep -q '(running)' "$T/st" || break; sleep 1
done
echo "pod: $ph"; grep -E '^sandbox|note' "$T/st"
case "$ph" in Running*) setup_error "the sshd was not the OOM victim";; esac
bad=0
grep -q '(running)' "$T/st" && { echo "status says running"; bad=1; }
set -- $(timed airlock exec "${N}b" -- true); echo "other sandbox: rc $1, $2"; [ "$1" = 0 ] || bad=1
timeout 200 airlock start "$N" > "$T/start" 2>&1 || { echo "start: $(tail -1 "$T/start")"; bad=1; }
inside "$N" 'cat ~/keep.txt' | grep -q keep || { echo "home lost"; bad=1; }
result $bad
