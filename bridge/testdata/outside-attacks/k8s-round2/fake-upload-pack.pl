# fake git-upload-pack: the real ref advertisement (capabilities cut to
# ofs-delta), NAK to every negotiation round, then a pack of random blobs
# read from /dev/urandom (nothing stored in the pod), ATK_MIB MiB of it.
use strict; use Compress::Zlib; $|=1;
my $repo=shift; my $mib=$ENV{ATK_MIB}||1024;
my $adv=`/usr/bin/git-upload-pack --advertise-refs '$repo'`;
sub pkt { my $s=shift; sprintf("%04x",length($s)+4).$s }
my $out=""; my $first=1;
while(length $adv){ my $l=hex(substr($adv,0,4)); if($l==0){$out.="0000"; $adv=substr($adv,4); next}
  my $d=substr($adv,4,$l-4); $adv=substr($adv,$l);
  if($first){ $d=~s/\0.*$/\0ofs-delta\n/s; $first=0 } $out.=pkt($d) }
syswrite(STDOUT,$out);
sub rd { my $h; sysread(STDIN,$h,4)==4 or exit 0; my $l=hex($h); return "" if $l==0; my $d=""; while(length($d)<$l-4){ sysread(STDIN,my $b,$l-4-length($d)) or exit 0; $d.=$b } $d }
while(rd() ne ""){}                      # wants, up to the flush
while(1){ my $d=rd(); if($d eq ""){ syswrite(STDOUT,pkt("NAK\n")); next } if($d=~/^done/){ syswrite(STDOUT,pkt("NAK\n")); last } }
open(my $r,"<:raw","/dev/urandom") or die;
syswrite(STDOUT,"PACK".pack("NN",2,$mib));
for (1..$mib){ sysread($r,my $buf,1<<20); my $sz=length $buf;
  my $h=chr(0x80|(3<<4)|($sz&15)); $sz>>=4; while($sz){ my $c=$sz&127; $sz>>=7; $h.=chr($sz?($c|128):$c) }
  my ($z)=deflateInit(-Level=>0); my ($o1)=$z->deflate($buf); my ($o2)=$z->flush();
  syswrite(STDOUT,$h.$o1.$o2) or exit 0 }
sleep 30;
