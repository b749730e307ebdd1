#!/bin/bash
# Two people's bridges in one namespace (README: one namespace per person,
# but nothing enforces it). Home A has a running sandbox; home B brings up
# and removes its own, tries rm/stop of A's name, restarts its bridge (any
# start-up garbage collection by label). A's four objects must be untouched
# and B's ls must not list A's sandbox. Got through when any of A's objects
# disappears or B can see or act on it.
. "$(dirname "$0")/lib.sh"
need_cluster2
write_sandbox "$N"; up_sandbox "$N"
# (not the short-lived airlock-NAME-probe pod the bridge runs once per pod:
# it ends by itself, 4ff1080)
mine() { kc get pods,pvc,secrets,networkpolicies -l "airlock.dev/sandbox=$N" --no-headers -o name 2>/dev/null | grep -vc -- '-probe$'; }
before=$(mine)
HB=$T/homeB; mkdir -p "$HB" "$T/pb"; cp "$AIRLOCK_HOME/kubernetes.hcl" "$HB/"
bad=0
(
  export AIRLOCK_HOME=$HB; cd "$T/pb" && git init -q . &&
  printf 'sandbox "%sx" {\n  backend = "kubernetes"\n}\n' "$N" > sandbox.hcl && git add -A && git commit -qm i &&
  timeout 300 airlock up --yes >/dev/null 2>&1 || exit 2
  airlock ls | grep -q "^$N " && echo "B LISTS A"
  timeout 60 airlock rm --force "$N" 2>&1 | head -1; timeout 60 airlock stop "$N" 2>&1 | head -1
  timeout 120 airlock rm --force "${N}x" >/dev/null 2>&1
  airlock bridge -stop >/dev/null 2>&1; airlock ls >/dev/null 2>&1; sleep 3; airlock bridge -stop >/dev/null 2>&1
) > "$T/b.out"; brc=$?
cat "$T/b.out"
[ "$brc" = 2 ] && setup_error "home B up"
grep -q "B LISTS A" "$T/b.out" && bad=1
after=$(mine); echo "A's objects: $before before, $after after"
[ "$after" = "$before" ] || bad=1
timeout 30 airlock exec "$N" -- true || { echo "A no longer answers"; bad=1; }
result $bad
