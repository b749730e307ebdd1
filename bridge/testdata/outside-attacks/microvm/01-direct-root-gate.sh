#!/bin/bash
# Direct mode vs. root in the guest and a --privileged container with the workspace
# bind-mounted (and the 9p share re-mounted): try to write .git, protected and hidden
# paths, create nested/bare git dirs (also racing the gate), device nodes, FIFOs,
# set-id files, xattrs; then run host git and look for a marker a planted
# hook/fsmonitor would create. Also: does review flag an escaping symlink?
source "$(dirname "$0")/lib.sh"
ensure_tool || setup_error "tool build"
W=$ATK_BASE/ws; M=$ATK_BASE/HOST-MARKER
mkdir -p $W && cd $W && git init -q && echo hi > a.txt && mkdir secrets prot && echo TOPSECRET-7731 > secrets/s.txt \
  && echo orig > prot/p.txt && git add a.txt prot && git -c user.email=a@b -c user.name=a commit -qm init || setup_error "repo"
GITSUM_BEFORE=$(cd $W/.git && find . -type f ! -name index -exec sha256sum {} + | sort | sha256sum)
write_hcl $ATK_BASE/sb.hcl gate1 $W direct "" 'hide = ["secrets/"]
    protect = ["prot/"]'
up_sbx $ATK_BASE/sb.hcl gate1 || setup_error "up"
push_tool gate1 || setup_error "push tool"
wait_docker gate1 || setup_error "docker not ready"
build_atk_image gate1 || setup_error "image build"
OUT=$ATK_BASE/out.txt
# 1) root in the guest: drop the read-only overmounts, then write through the rw share
ax gate1 sudo bash -c "
umount /workspace/.git; umount /workspace/prot; mount | grep -c 'on /workspace/' | sed 's/^/OVERMOUNTS_LEFT=/'
echo '#!/bin/sh' > /workspace/.git/hooks/post-checkout && echo WROTE-HOOK
printf '[core]\n\tfsmonitor = touch $M\n' >> /workspace/.git/config && echo WROTE-CONFIG
echo pwned > /workspace/prot/p.txt && echo WROTE-PROT
cat /workspace/secrets/s.txt 2>/dev/null; ls -a /workspace
echo ok > /workspace/guestroot-ok.txt
for d in n1 b1 b2 b3 cfg; do mkdir -p /workspace/\$d; printf '[core]\n\tfsmonitor = touch $M\n\tbare = false\n\tworktree = ..\n' > /workspace/\$d/config; printf '#!/bin/sh\ntouch $M\n' > /workspace/\$d/hooks 2>/dev/null; done
mkdir -p /workspace/race; cd /workspace/race; for i in \$(seq 40); do mkdir r\$i; done
for i in \$(seq 40); do (echo 'ref: refs/heads/master' > r\$i/HEAD) 2>/dev/null & mkdir r\$i/objects 2>/dev/null & mkdir r\$i/refs 2>/dev/null & done; wait
for i in \$(seq 40); do mkdir q\$i q\$i/objects q\$i/refs 2>/dev/null; echo 'ref: refs/heads/master' > q\$i/H 2>/dev/null; done
for i in \$(seq 40); do (mv q\$i/H q\$i/HEAD) 2>/dev/null & (mkdir q\$i/x; mv q\$i/objects q\$i/x/ ; mv q\$i/x/objects q\$i/) 2>/dev/null & done; wait
" > $OUT 2>&1
# 2) a privileged root container with the workspace bind-mounted, and with its own mount of the 9p tag
ax gate1 docker run --rm --privileged -v /workspace:/w atk multi "
write /w/container-ok.txt ok ; write /w/.git/hooks/pre-commit x ; write /w/prot/p2.txt x ; cat /w/secrets/s.txt ; ls /w ;
mkdir /w/n1/.git ; write /w/n2/.git gitdir:/tmp ; mkdir /w/gd ; rename /w/gd /w/n1/.git ;
write /w/b1/HEAD ref:refs/heads/master ; mkdir /w/b1/objects ; mkdir /w/b1/refs ;
mkdir /w/b2/objects ; mkdir /w/b2/refs ; write /w/b2/H ref:refs/heads/master ; rename /w/b2/H /w/b2/HEAD ; link /w/b2/H /w/b2/HEAD ;
write /w/b3/HEAD ref:refs/heads/master ; mkdir /w/tmpo/objects ; rename /w/tmpo/objects /w/b3/objects ; write /w/b3/commondir .. ;
mknod /w/dev0 ; mkfifo /w/fifo0 ; write /w/su x ; chmod /w/su 6755 ; setxattr /w/a.txt ;
symlink /etc/shadow /w/escape-link ; symlink ../../../../root/.ssh /w/escape-dir" >> $OUT 2>&1
ax gate1 sudo umount -l /workspace >> $OUT 2>&1
ax gate1 docker run --rm --privileged atk mount9p ws /m "write /m/mount9p-ok.txt ok ; write /m/.git/hooks/pre-push x ; cat /m/secrets/s.txt ; mkdir /m/n4/.git ; write /m/prot/p.txt x" >> $OUT 2>&1
ax gate1 docker run --rm --privileged atk mount9p wsro /m2 "cat /m2/secrets/s.txt ; ls /m2" >> $OUT 2>&1
cat $OUT >&2
# setup checks: the guest root shell and both containers really wrote into the host folder
[ -f $W/guestroot-ok.txt ] && [ -f $W/container-ok.txt ] && [ -f $W/mount9p-ok.txt ] || setup_error "writes did not land"
grep -q 'OVERMOUNTS_LEFT=0' $OUT || setup_error "could not drop the ro overmounts"
grep -q 'MKDIR /w/n1/.git' $OUT || setup_error "container output missing"
FAIL=()
GITSUM_AFTER=$(cd $W/.git && find . -type f ! -name index -exec sha256sum {} + | sort | sha256sum)
[ "$GITSUM_BEFORE" = "$GITSUM_AFTER" ] || FAIL+=("host .git changed")
[ "$(cat $W/prot/p.txt)" = orig ] && [ ! -e $W/prot/p2.txt ] || FAIL+=("protected path written")
grep -q TOPSECRET-7731 $OUT && FAIL+=("hidden file read")
grep -E 'WROTE-(HOOK|CONFIG|PROT)' $OUT && FAIL+=("guest root wrote a read-only path")
while IFS= read -r g; do [ "$g" = "$W/.git" ] || FAIL+=("nested .git: $g"); done < <(find $W -iname .git)
for d in $(find $W -mindepth 1 -type d -not -path "$W/.git*"); do
  [ -e $d/HEAD ] && { [ -e $d/objects ] || [ -e $d/refs ] || [ -e $d/commondir ]; } && FAIL+=("git-dir shape at $d")
done
[ -n "$(find $W -not -path "$W/.git/*" \( -type b -o -type c -o -type p \))" ] && FAIL+=("device/fifo on host")
[ -n "$(find $W -perm /6000)" ] && FAIL+=("set-id file on host")
# host git in the folder and in every dir the agent made; a hook/fsmonitor would touch $M
for d in $W $(find $W -mindepth 1 -type d -not -path "$W/.git*"); do (cd $d && git status >/dev/null 2>&1; git log -1 >/dev/null 2>&1); done
[ -e $M ] && FAIL+=("MARKER created by host git")
# review must flag the escaping symlink
airlock review gate1 > $ATK_BASE/review.txt 2>&1; RC=$?
grep -q 'FS-SYMLINK-ESCAPE' $ATK_BASE/review.txt || FAIL+=("review did not flag escaping symlink (rc=$RC)")
[ -L $W/escape-link ] || setup_error "symlink not created"
printf 'finding: %s\n' "${FAIL[@]}" >&2
[ ${#FAIL[@]} -eq 0 ] && defended || succeeded
