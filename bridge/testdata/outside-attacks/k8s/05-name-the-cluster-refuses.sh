#!/bin/bash
# Sandbox names at the edge of what Kubernetes takes: objects are named
# airlock-NAME and labelled airlock.dev/sandbox=NAME. "a-" (a trailing
# hyphen: not an RFC 1123 name, not a label value) and a 63-character name.
# Each must be refused by validate with a position, or come up and be
# removed without leaving an object behind. Got through when validate
# accepts a name up then fails on (a raw API error), or rm leaves objects.
. "$(dirname "$0")/lib.sh"
need_cluster
bad=0
for n in a- "$(printf 'a%.0s' $(seq 62))$((RANDOM % 10))"; do
  write_sandbox "$n"
  if ! airlock validate >"$T/v.out" 2>&1; then
    grep -q 'sandbox.hcl:[0-9]*,[0-9]*' "$T/v.out" || { echo "$n refused without a position"; bad=1; }
    continue
  fi
  SBS="$SBS $n"; git add -A >/dev/null; git commit -qm "$n" >/dev/null
  if ! timeout 300 airlock up --yes >"$T/up.log" 2>&1; then
    echo "validate accepted $n, up failed: $(head -c 200 "$T/up.log")"; bad=1
  fi
  timeout 120 airlock rm --force "$n" >/dev/null 2>&1
  left=$(kc get pod,pvc,secret,networkpolicy -l "airlock.dev/sandbox=$n" -o name 2>/dev/null)
  [ -z "$left" ] || { echo "left after rm of $n: $left"; bad=1; }
done
result $bad
