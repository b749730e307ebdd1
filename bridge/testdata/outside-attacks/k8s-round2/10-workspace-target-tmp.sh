#!/bin/bash
# sandbox.hcl's workspace target "/tmp" (or "/var/tmp") passes validate and
# plan on the kubernetes backend, but the pod already mounts a volume there:
# up fails with the API server's raw "mountPath must be unique". Got through
# when validate accepts a target that up then fails on (the plan promised
# something the backend cannot give), for either path.
. "$(dirname "$0")/lib.sh"
need_cluster2
bad=0
for t in /tmp /var/tmp; do
  write_sandbox "$N" "  workspace { target = \"$t\" }"
  sed -i '0,/workspace { mode = "clone" }/{/workspace { mode = "clone" }/d}' sandbox.hcl
  v=$(airlock validate 2>&1 | head -1)
  git add -A >/dev/null; git commit -qm "t $t" >/dev/null; SBS="$SBS $N"
  timeout 200 airlock up --yes > "$T/up" 2>&1; rc=$?
  echo "target $t: validate '$v'; up rc $rc: $(head -c 220 "$T/up")"
  case "$v" in *ok*) [ $rc != 0 ] && bad=1;; esac
  timeout 90 airlock rm --force "$N" >/dev/null 2>&1
done
result $bad
