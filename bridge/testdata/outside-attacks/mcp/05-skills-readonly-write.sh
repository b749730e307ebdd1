#!/bin/bash
# Write to the read-only host skills directory from inside: create, append, truncate, rm, mv,
# mkdir, chmod, touch, symlink, hard link, xattr, remount, /proc/*/root paths, ~/.codex alias.
source "$(dirname "$0")/lib.sh"
S="$AIRLOCK_HOME/skills"; mkdir -p "$S/demo"; echo "original" > "$S/demo/SKILL.md"; chmod -R a+rwX "$S"
write_mcp_hcl ''
write_sandbox ''
up || die "up failed"
find "$S" -printf '%M %u %p %s\n' | sort > "$T/before"
cat > "$T/inside.sh" <<'IN'
for d in ~/.claude/skills ~/.codex/skills /proc/self/root/home/agent/.claude/skills /proc/1/root/home/agent/.claude/skills; do
  echo "== $d"
  (echo pwn > $d/new.md) 2>&1 | head -1
  (echo pwn >> $d/demo/SKILL.md) 2>&1 | head -1
  (: > $d/demo/SKILL.md) 2>&1 | head -1
  rm -f $d/demo/SKILL.md 2>&1 | head -1
  mv $d/demo $d/demo2 2>&1 | head -1
  mkdir $d/newdir 2>&1 | head -1
  chmod 000 $d/demo/SKILL.md 2>&1 | head -1
  touch -d 2000-01-01 $d/demo/SKILL.md 2>&1 | head -1
  ln -s /etc/passwd $d/lnk 2>&1 | head -1
  echo x > ~/hl; ln ~/hl $d/hl 2>&1 | head -1
  python3 -c "import os; os.setxattr('$d/demo/SKILL.md','user.x',b'1')" 2>&1 | tail -1
  mkfifo $d/fifo 2>&1 | head -1
done
mount -o remount,rw ~/.claude/skills 2>&1 | head -1
mount --bind /tmp ~/.claude/skills 2>&1 | head -1
umount ~/.claude/skills 2>&1 | head -1
unshare -Urm sh -c 'mount -o remount,rw $HOME/.claude/skills; echo pwn > $HOME/.claude/skills/u.md' 2>&1 | head -1
mv ~/.claude ~/.claude.old 2>&1 | head -1; mkdir -p ~/.claude/skills; echo mine > ~/.claude/skills/mine.md 2>&1 | head -1
grep skills /proc/self/mountinfo
IN
ax sh -c "$(cat $T/inside.sh)" 2>&1 | sort | uniq -c | sort -rn | head -30
find "$S" -printf '%M %u %p %s\n' | sort > "$T/after"
echo "--- host skills dir diff:"; diff "$T/before" "$T/after" && [ "$(cat $S/demo/SKILL.md)" = original ] && defended
gotthrough
