#!/bin/bash
# The bridge is killed (SIGKILL) at several points during `up`; then `airlock
# rm --force NAME`. Nothing labelled airlock.dev/sandbox=NAME may be left in
# the namespace (pod, claim, Secret, policy), and nothing may be left that
# `airlock ls` does not show. Got through when objects outlive rm, or exist
# for a sandbox ls does not list.
. "$(dirname "$0")/lib.sh"
need_cluster
write_sandbox "$N"; git add -A; git commit -qm i >/dev/null; SBS="$N"
bad=0
for d in 0.1 0.2 0.3 0.5 0.8; do
  airlock ls >/dev/null 2>&1
  bp=$(bridge_pid) || setup_error "no bridge"
  timeout 100 airlock up --yes >/dev/null 2>&1 &
  sleep $d; kill -9 "$bp"; wait; sleep 2
  o=$(kc get pod,pvc,secret,networkpolicy -l "airlock.dev/sandbox=$N" -o name | tr '\n' ' ')
  if [ -n "$o" ] && ! airlock ls 2>/dev/null | grep -q "^$N "; then echo "kill at $d s: $o, not listed"; bad=1; fi
  timeout 120 airlock rm --force "$N" >/dev/null 2>&1
  sleep 1
  o=$(kc get pod,pvc,secret,networkpolicy -l "airlock.dev/sandbox=$N" -o name | tr '\n' ' ')
  [ -z "$o" ] || { echo "kill at $d s: left after rm: $o"; bad=1; }
done
result $bad
