#!/bin/bash
# `airlock review` fetches the snapshot with the host's `git fetch` over
# ssh; in the pod that runs `git-upload-pack '/workspace'` through the
# agent's shell and PATH, whose first entry is ~/.local/bin (at dce83c2;
# were that fixed, 13 gets the same through the sshd). The agent's
# git-upload-pack (fake-upload-pack.pl, beside this script) gives the real
# ref advertisement, then a pack of random blobs read from /dev/urandom:
# nothing stored in the pod, ATK_MIB MiB (default 1024; the pack header
# allows 2^32 objects) written by the host's index-pack into
# $AIRLOCK_HOME's quarantine. At dce83c2 no byte or time cap stopped it
# (1 GiB per fetch, two fetches per review, both tmp packs left); 14e0486
# bounds a fetch by the sandbox's disk. The sandbox here has disk = "1GiB"
# and sends ATK_MIB = 2048 MiB. Got through when the host-side state grows
# by more than disk + 64 MiB during one review, or a tmp pack is left.
. "$(dirname "$0")/lib.sh"
need_cluster2
mib=${ATK_MIB:-2048}
write_sandbox "$N" '  disk = "1GiB"'; up_sandbox "$N"
inside "$N" "mkdir -p ~/.local/bin && echo $(base64 -w0 "$(dirname "$0")/fake-upload-pack.pl") | base64 -d > ~/.local/bin/up.pl &&
printf '%s\n' '#!/bin/sh' 'exec env ATK_MIB=$mib perl \$HOME/.local/bin/up.pl \"\$@\"' > ~/.local/bin/git-upload-pack && chmod +x ~/.local/bin/git-upload-pack &&
echo change >> /workspace/changed.txt" || setup_error "plant"
d0=$(du -sm "$AIRLOCK_HOME" | cut -f1); peak=$d0
(timeout 400 airlock review "$N" > "$T/rev" 2>&1; echo "review rc $?" >> "$T/rev") &
rv=$!
while kill -0 $rv 2>/dev/null; do
  d=$(du -sm "$AIRLOCK_HOME" 2>/dev/null | cut -f1); [ "$d" -gt "$peak" ] && peak=$d; sleep 3
done
tail -3 "$T/rev" | cut -c1-200
left=$(find "$AIRLOCK_HOME" -name 'tmp_pack_*' -printf '%s %p\n' 2>/dev/null)
echo "host state: ${d0} MiB before, ${peak} MiB peak, $(du -sm "$AIRLOCK_HOME" | cut -f1) MiB after review; tmp packs left: ${left:-none}"
bad=0
[ $(( peak - d0 )) -gt $(( 1024 + 64 )) ] && bad=1
[ -n "$left" ] && bad=1
result $bad
