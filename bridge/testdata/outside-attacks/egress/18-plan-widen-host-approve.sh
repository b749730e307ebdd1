#!/bin/bash
# `airlock plan` must warn when sandbox.hcl widens around the host's approve rules. egress.hcl holds
# "svc.test POST /repos/*/*/releases"; a repository's sandbox.hcl (no approve rules of its own) asks for
# preset "open" or a public CIDR (a CDN's range, say). The plan warns about
# widening only when sandbox.hcl has approve rules itself, so the person is not told that a held server
# reached under another name will not be held. Got through when a plan for such a file names neither
# the approve rules nor the widening.
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test POST /repos/*/*/releases"]'
n=0
for al in 'preset = "open"' 'allow = ["104.16.0.0/13"]'; do
  printf 'sandbox "p" {\n  backend = "namespace"\n  workspace { mode = "mountless" }\n  network {\n    %s\n  }\n}\n' "$al" > "$T/proj/p.hcl"
  out=$(airlock plan -f "$T/proj/p.hcl" 2>&1) || { echo "$out" >&2; setup_error "plan for $al"; }
  if echo "$out" | grep -qiE 'approve|held'; then echo "  $al: plan warns"; else echo "  $al: plan says nothing about the host's approve rules"; n=$((n+1)); fi
done
result $n
