#!/bin/bash
# Two airlock homes (two users, or one user's two machines) pointed at the
# same namespace, each with a sandbox of the same name. The second must not
# adopt, stop, remove or start the first's pod, claim or Secret: running or
# stopped, the second's up fails and its rm/stop find nothing, and the
# first's home (a file written in the pod) is never visible to the second.
# Got through when the second reaches the first's data or deletes its objects.
. "$(dirname "$0")/lib.sh"
need_cluster
echo one > who.txt; write_sandbox "$N"; up_sandbox "$N"
inside "$N" "echo FIRST-PRIVATE-$$ > ~/private.txt" || setup_error "write"
H1=$AIRLOCK_HOME; H2=$T/home2; mkdir -p "$H2" "$T/proj2"; cp "$H1/kubernetes.hcl" "$H2/"
cd "$T/proj2" && git init -q . && echo two > who.txt && write_sandbox "$N" && git add -A && git commit -qm two || setup_error "repo 2"
second() { AIRLOCK_HOME=$H2 timeout 120 airlock "$@"; }
bad=0
for phase in running stopped; do
  if second up --yes >"$T/up2.log" 2>&1; then
    echo "second up succeeded while the first is $phase"
    second exec "$N" -- cat /home/agent/private.txt 2>/dev/null | grep -q "FIRST-PRIVATE-$$" && { echo "second reads the first's home"; bad=1; }
    second rm --force "$N" >/dev/null 2>&1
  fi
  second stop "$N" >/dev/null 2>&1; second rm --force "$N" >/dev/null 2>&1
  [ "$(kc get pvc,secret -l "airlock.dev/sandbox=$N" -o name | wc -l)" = 2 ] || { echo "second removed the first's claim or Secret ($phase)"; bad=1; }
  [ $phase = running ] && { cd "$P"; timeout 120 airlock stop "$N" >/dev/null 2>&1 || setup_error "stop"; }
done
AIRLOCK_HOME=$H2 timeout 30 airlock bridge -stop >/dev/null 2>&1
cd "$P"; timeout 120 airlock start "$N" >/dev/null 2>&1 || { echo "first cannot start again"; bad=1; }
inside "$N" 'cat ~/private.txt' | grep -q "FIRST-PRIVATE-$$" || { echo "first's home lost"; bad=1; }
result $bad
