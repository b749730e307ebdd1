#!/bin/bash
# Sandbox A opens 3,000 connections to the egress proxy (127.0.0.1:3128
# inside, the SSH reverse tunnel to the host proxy) and holds each with half
# a CONNECT request (slowloris), for 60 s. Meanwhile sandbox B (same bridge)
# asks the proxy for a denied host and must still get its 403 quickly, and
# the bridge's memory must stay bounded. Got through when B's proxy does not
# answer within 10 s, or the bridge grows by more than 200 MiB.
. "$(dirname "$0")/lib.sh"
need_cluster2
write_sandbox "$N"; up_sandbox "$N"
second_sandbox "${N}b"
bp=$(bridge_pid) || setup_error "no bridge"
r0=$(rss_kib "$bp")
inside "$N" 'cat > /tmp/flood.pl <<"P"
use IO::Socket::INET; my ($n,$hold)=@ARGV; my @s; my $ok=0;
for (1..$n){ my $c=IO::Socket::INET->new(PeerAddr=>"127.0.0.1",PeerPort=>3128,Timeout=>2) or next;
  syswrite($c,"CONNECT example.com:443 HTTP/1.1\r\nHost: exa"); push @s,$c; $ok++ }
print "held $ok\n"; sleep $hold;
P' || setup_error "plant"
(timeout 150 airlock exec "$N" -- perl /tmp/flood.pl 3000 60 >"$T/flood.out" 2>&1 &)
sleep 25
bad=0; peak=$r0
for i in 1 2 3; do
  code=$(timeout 15 airlock exec "${N}b" -- curl -s -m 10 --noproxy '' -x http://127.0.0.1:3128 -o /dev/null -w '%{http_code}' http://example.com/ 2>/dev/null)
  r=$(rss_kib "$bp"); [ "$r" -gt "$peak" ] && peak=$r
  echo "B's proxy answer $i: '${code:-none}', bridge RSS ${r} KiB"
  [ "$code" = 403 ] || bad=1
  sleep 5
done
sleep 40; cat "$T/flood.out"
grep -c 'limit reached' "$AIRLOCK_HOME/logs/bridge.log" | sed 's/^/bridge log "limit reached" lines: /'
echo "bridge RSS ${r0} -> peak ${peak} KiB"
[ $(( peak - r0 )) -gt 204800 ] && { echo "bridge grew over 200 MiB"; bad=1; }
result $bad
