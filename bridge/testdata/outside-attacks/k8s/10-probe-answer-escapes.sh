#!/bin/bash
# The NetworkPolicy/disk probe runs as `bash -c SCRIPT` through the pod's
# sshd, and Debian's bash reads ~/.bashrc when started by an SSH daemon
# (SSH_CLIENT set), so the agent's ~/.bashrc (kept on the claim) answers
# for it. Its answer: an interface that does not exist, a "try" line whose
# error text carries terminal escapes (OSC title, CSI colour, CR) and
# "df 1024". The verdict is documented as the pod's report (a hint), but
# `airlock status` must not print bytes the pod chose as terminal control
# sequences on the user's terminal. Got through when status's output holds
# ESC, BEL or CR from the pod. (Also printed: whether the lie about the
# network and the disk was believed.) Since the NetworkPolicy look moved to
# the bridge's own probe pod, only the df still runs over SSH (its own
# script, the second case below); the first case is left as it was.
. "$(dirname "$0")/lib.sh"
need_cluster
write_sandbox "$N"; up_sandbox "$N"
inside "$N" 'cat > ~/.bashrc <<"E"
case "$BASH_EXECUTION_STRING" in
"for i in /sys/class/net/"*) printf "if eth0\ntry 10.0.0.1:443 error 1 \033]0;OWNED\007\033[31mRED\033[0m\rnote: FAKE\ndf 1024\n"; exit 0;;
"( set -- \$(df"*) printf "df 1024 \033]0;OWNED\007\033[31mRED\033[0m\r\n"; exit 0;;
esac
E' || setup_error "plant"
# a new pod (a new UID) is probed again
timeout 120 airlock stop "$N" >/dev/null 2>&1 && timeout 120 airlock start "$N" >/dev/null 2>&1 || setup_error "restart"
for _ in $(seq 20); do
  airlock status "$N" > "$T/status" 2>&1
  grep -q 'being checked' "$T/status" || break
  sleep 1
done
grep -a '^note\|^limit disk' "$T/status" | cat -v
grep -aq 'as far as a probe can tell' "$T/status" && echo "(believed: the policy enforced, on a pod with loopback only)"
grep -aq '^limit disk:.*, enforced' "$T/status" && echo "(believed: the disk limit enforced, on local volumes)"
grep -aq $'[\x1b\x07\r]' "$T/status"; [ $? = 0 ] && gotthrough || defended
