#!/bin/bash
# One sandbox silences another's prompt. The bridge remembers refused held requests for a minute by
# their identity (method, URL, body hash) and refuses them again without a prompt; the identity does
# not name the sandbox. Sandbox atk fills its three prompt slots, then sends the request sandbox atk2
# is about to send (a predictable POST: same URL and body); it is refused (too many waiting), which
# starts the cooldown for that identity. Got through when atk2's request is then refused without a
# prompt ("refused less than a minute ago") although atk2 never asked before.
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test POST /repos/*/*/releases"]'
up
SBNAME=atk2 up
X="curl -s -m 30 -XPOST -H content-type:application/json -d '{\"tag_name\":\"v1.0.0\"}' https://svc.test:$SP/repos/o/r/releases"
ax sh -c "for i in 1 2 3; do curl -s -m 30 -XPOST -d \$i https://svc.test:$SP/repos/a/\$i/releases -o /dev/null & done; wait" </dev/null &
P=$!
wait_pending 3 || setup_error "atk's prompts did not open"
echo "atk: $(ax sh -c "$X" </dev/null | head -1)"
IN=atk2 ax sh -c "$X" </dev/null > "$T/b.out" &
P2=$!
got=0
for i in $(seq 40); do
  airlock approvals --json | grep -q '"sandbox": *"atk2"' && { got=1; break; }
  kill -0 $P2 2>/dev/null || break
  sleep 0.25
done
deny_all; wait $P $P2
echo "atk2 got a prompt: $got; its answer: $(head -1 "$T/b.out")"
[ "$got" = 1 ] && defended
grep -q 'less than a minute ago' "$T/b.out" && gotthrough
setup_error "atk2 neither got a prompt nor the cooldown refusal"
