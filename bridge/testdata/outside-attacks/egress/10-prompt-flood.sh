#!/bin/bash
# Flood the person with prompts: 40 distinct held POSTs at once from one sandbox. Checks that the
# number of prompts one sandbox can keep waiting is small, that the excess is refused (nothing sent),
# and that a second sandbox still gets its own prompt while the first is at its limit.
# Got through when more than 10 prompts wait for one sandbox, anything reaches the server, or the
# second sandbox's request is refused without a prompt.
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test POST /*"]'
up
SBNAME=atk2 up
bad=0
ax sh -c "for i in \$(seq 1 40); do curl -s -m 20 -XPOST -d \$i https://svc.test:$SP/f\$i -o /dev/null & done; wait" </dev/null &
P=$!
sleep 6
n=$(pending_count); echo "prompts waiting from one sandbox: $n"
[ "$n" -le 10 ] || bad=1
IN=atk2 ax sh -c "curl -s -m 20 -XPOST -d other https://svc.test:$SP/other -o /dev/null" </dev/null &
P2=$!
other=0
for i in $(seq 40); do
  airlock approvals --json | grep -q '"sandbox": *"atk2"' && { other=1; break; }
  sleep 0.25
done
echo "second sandbox got a prompt: $other"
[ "$other" = 1 ] || bad=1
deny_all; wait $P $P2
r=$(reached .); echo "reached the server: $r"
[ "$r" -eq 0 ] || bad=1
airlock ls >/dev/null 2>&1 || { echo "bridge not answering"; bad=1; }
result $bad
