#!/bin/bash
# Two airlock homes on one namespace run `up` of the same sandbox name at
# the same moment. Create checks only for the claim, then makes Secret,
# claim, policy; on an error its cleanup deletes objects by name. So the
# loser (AlreadyExists on one object) deletes the winner's Secret/claim/pod:
# seen, the winner then waits for a pod that can never mount its Secret
# until the CLI gives up (100 s), and both report failure. Got through when,
# in any of 4 rounds, a home lists the sandbox but it does not answer exec,
# or an up takes over 90 s.
. "$(dirname "$0")/lib.sh"
need_cluster
H2=$T/home2; mkdir -p "$H2" "$T/proj2"; cp "$AIRLOCK_HOME/kubernetes.hcl" "$H2/"
write_sandbox "$N"; git add -A; git commit -qm i >/dev/null; SBS="$N"
(cd "$T/proj2" && git init -q . && write_sandbox "$N" && git add -A && git commit -qm i >/dev/null) || setup_error "repo 2"
two() { AIRLOCK_HOME=$H2 "$@"; }
airlock ls >/dev/null 2>&1; two airlock ls >/dev/null 2>&1
bad=0
for i in 1 2 3 4; do
  s=$(date +%s)
  (timeout 120 airlock up --yes >"$T/u1" 2>&1) & (cd "$T/proj2" && two timeout 120 airlock up --yes >"$T/u2" 2>&1) & wait
  took=$(( $(date +%s) - s ))
  for h in "$AIRLOCK_HOME" "$H2"; do
    if AIRLOCK_HOME=$h airlock ls 2>/dev/null | grep -q "^$N "; then
      AIRLOCK_HOME=$h timeout 30 airlock exec "$N" -- true >/dev/null 2>&1 || { echo "round $i: $h lists $N, exec fails; objects: $(kc get pod,pvc,secret,networkpolicy -l airlock.dev/sandbox=$N -o name | tr '\n' ' ')"; bad=1; }
    fi
  done
  [ $took -gt 90 ] && { echo "round $i: up took $took s"; bad=1; }
  timeout 120 airlock rm --force "$N" >/dev/null 2>&1; two timeout 120 airlock rm --force "$N" >/dev/null 2>&1
  [ $bad = 1 ] && break
done
two timeout 30 airlock bridge -stop >/dev/null 2>&1
result $bad
