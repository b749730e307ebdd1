#!/bin/bash
# From inside the pod, without the egress proxy: TCP to the API server (as
# the kubeconfig names it, and the service address 10.0.0.1 / 10.96.0.1),
# the node's kubelet (10250) and read-only kubelet (10255) on the pod's
# node IP and on loopback, the cloud metadata address, an internet address;
# also a service account token or KUBERNETES_* env. Got through when any
# connection is answered (connected) or a token is there.
. "$(dirname "$0")/lib.sh"
need_cluster
write_sandbox "$N"; up_sandbox "$N"
srv=$(kubectl --kubeconfig "$KUBECONFIG_FILE" config view --minify -o jsonpath='{.clusters[0].cluster.server}')
hp=${srv#https://}; host=${hp%:*}; port=${hp##*:}
node=$(kc get pod "airlock-$N" -o jsonpath='{.status.hostIP}')
pod=$(kc get pod "airlock-$N" -o jsonpath='{.status.podIP}')
targets="$host:$port 10.0.0.1:443 10.96.0.1:443 ${node:-127.0.0.1}:10250 ${node:-127.0.0.1}:10255 127.0.0.1:10250 ${pod:-127.0.0.1}:2222 169.254.169.254:80 1.1.1.1:443 8.8.8.8:53"
out=$(inside "$N" "python3 - $targets <<'PY'
import socket,sys,os
for t in sys.argv[1:]:
    h,p=t.rsplit(':',1); s=socket.socket(); s.settimeout(3)
    try: s.connect((h,int(p))); print('CONNECTED',t)
    except Exception as e: print('no',t,e)
for d in ['/var/run/secrets/kubernetes.io/serviceaccount','/run/secrets/kubernetes.io/serviceaccount']:
    if os.path.exists(d): print('TOKEN',d)
for k in os.environ:
    if k.startswith('KUBERNETES_'): print('ENV',k)
PY")
echo "$out"
echo "$out" | grep -q '^no ' || setup_error "probe did not run"
echo "$out" | grep -qE '^(CONNECTED|TOKEN|ENV)'; [ $? = 0 ] && gotthrough || defended
