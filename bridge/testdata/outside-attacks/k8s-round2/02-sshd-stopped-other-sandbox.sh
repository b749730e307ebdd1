#!/bin/bash
# The pod's sshd runs as the agent's own uid, so the agent can SIGSTOP it
# (a frozen peer: TCP open through the port-forward, nothing answers). The
# bridge must keep serving the user's other sandboxes: ls, status, exec and
# review of sandbox B within 10 s each while A's sshd is frozen (60 s).
# Got through when any of them takes over 10 s or fails.
. "$(dirname "$0")/lib.sh"
need_cluster2
write_sandbox "$N"; up_sandbox "$N"
second_sandbox "${N}b"
(timeout 120 airlock exec "$N" -- sh -c 'p=$(pgrep -f "airlock-agent sshd" | head -1); sleep 2; kill -STOP $p; sleep 60; kill -CONT $p' >/dev/null 2>&1 &)
sleep 5
bad=0
for c in "ls" "status ${N}b" "exec ${N}b -- true" "review ${N}b" "ls" "exec ${N}b -- true"; do
  set -- $(timed airlock $c); echo "airlock $c: rc $1, $2"
  [ "$1" = 0 ] && [ "${2%ms}" -le 10000 ] || bad=1
done
set -- $(timed airlock exec "$N" -- true); echo "(A itself, frozen: rc $1, $2)"
sleep 60
set -- $(timed airlock exec "$N" -- true); echo "A after its sshd continues: rc $1, $2"
result $bad
