#!/bin/bash
# 29: the gate adds an inotify watch for every directory the sandbox looks
# up (watch.go) and drops it only when the sandbox's kernel forgets the
# inode. For a folder a user owns the gate runs as that user, and inotify
# watches are counted per user (fs.inotify.max_user_watches, shared with
# the user's editor, dev servers and desktop): the agent takes the user's
# watches one directory at a time, with no cap of the gate's own, until
# the user's own file watchers fail with ENOSPC. Here 6,000 directories.
# Defended: the gate holds at most a bounded share of the user's watches
# (under 4,096 here) whatever the agent looks at.
SB=atk29
. "$(dirname "$0")/lib.sh"
mkrepo
U=4242
chown -R $U:$U "$WS" || setup_error "chown"
up
GP=$(pgrep -u $U -f "__workspace-gate -folder $WS " | head -1)
[ -n "$GP" ] || { ps -eo pid,user,args | grep __workspace-gate | grep -v grep; setup_error "no gate running as the folder's owner"; }
watches() {
  local n=0 f
  for f in /proc/$GP/fd/*; do
    [ "$(readlink "$f")" = "anon_inode:inotify" ] && n=$((n + $(grep -c '^inotify wd' "/proc/$GP/fdinfo/${f##*/}")))
  done
  echo $n
}
B0=$(watches)
ax sh -c 'mkdir -p /workspace/w && cd /workspace/w && seq 1 6000 | xargs mkdir -p && ls -la >/dev/null' || setup_error "mkdir inside"
A=$(watches)
echo "the gate (uid $U) holds $A inotify watches (before: $B0) of the user's $(cat /proc/sys/fs/inotify/max_user_watches)"
[ "$A" -ge 4096 ] && succeeded
defended
