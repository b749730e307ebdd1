#!/bin/bash
# The cluster's control plane listens on the user's host (the test cluster:
# etcd without auth and the API server on 127.0.0.1, the kubelet on the node
# address 192.0.2.2). The egress proxy runs on that same host, so a sandbox
# with preset "open" asks it for them in many spellings (decimal, hex,
# octal, short, IPv6, mapped, 0, localhost., names), as absolute-form GET and
# as CONNECT. Got through when any answer is 2xx (reached) or the proxy's
# upstream answered (no X-Airlock-Denied on a non-2xx).
. "$(dirname "$0")/lib.sh"
need_cluster2
srv=$(kubectl --kubeconfig "$KUBECONFIG_FILE" config view --minify -o jsonpath='{.clusters[0].cluster.server}')
hp=${srv#https://}; ap=${hp##*:}
ep=$(ss -Hltnp 2>/dev/null | awk '/etcd/ {split($4,a,":"); print a[2]; exit}')
kp=$(ss -Hltnp 2>/dev/null | awk '/kubelet/ {split($4,a,":"); print a[2]; exit}')
ep=${ep:-2379}; kp=${kp:-10250}
write_sandbox "$N" 'network { preset = "open" }'
sed -i '/preset = "locked-down"/d' sandbox.hcl
up_sandbox "$N"
hosts="127.0.0.1:$ep 127.1:$ep 2130706433:$ep 0x7f000001:$ep 0177.0.0.1:$ep localhost:$ep LOCALHOST.:$ep [::1]:$ep [0:0:0:0:0:0:0:1]:$ep [::ffff:127.0.0.1]:$ep [::ffff:7f00:1]:$ep 0.0.0.0:$ep 0:$ep 127.0.0.1:$ap 192.0.2.2:$kp 192.0.2.2:10250 10.0.0.1:443 airlock-node:10250 kubernetes.default.svc:443"
inside "$N" "for h in $hosts; do
  g=\$(curl --noproxy '' -s -m 5 -x http://127.0.0.1:3128 -D - -o /dev/null http://\$h/version | tr -d '\r' | grep -iE '^(HTTP/|x-airlock-denied)' | tr '\n' ' ')
  c=\$(curl --noproxy '' -s -m 5 -x http://127.0.0.1:3128 -p -o /dev/null -w 'connect=%{http_connect} code=%{http_code}' http://\$h/version)
  echo \"\$h | GET \$g | \$c\"
done" > "$T/out" || setup_error "probe"
cat "$T/out"
bad=0
grep -E 'GET HTTP/[0-9.]+ 2|connect=2|code=2' "$T/out" && bad=1
grep -E 'GET HTTP/[0-9.]+ [0-9]+' "$T/out" | grep -vi 'x-airlock-denied' && bad=1
result $bad
