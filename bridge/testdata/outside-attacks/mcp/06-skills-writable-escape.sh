#!/bin/bash
# With skills { writable = true } (repo author asks, host approves), sandbox A plants symlinks,
# set-id/exec files and a replaced subdir in the shared skills dir; then a second sandbox B
# (read-only skills) starts. Got through if A writes outside the skills dir on the host, plants a
# set-id file, or B (or the host's mount setup) follows A's symlink to host files.
source "$(dirname "$0")/lib.sh"
S="$AIRLOCK_HOME/skills"; mkdir -p "$S/demo"; echo original > "$S/demo/SKILL.md"; chmod -R a+rwX "$S"
echo HOSTSECRET > "$T/hostsecret.txt"; chmod 644 "$T/hostsecret.txt"
write_mcp_hcl ''
SBNAME=a write_sandbox 'skills {
    writable = true
  }'
SBNAME=a up || die "up a"
ax sh -c "
echo aw > ~/.claude/skills/from-a.md && echo wrote-ok
ln -s $T/hostsecret.txt ~/.claude/skills/evil-file
ln -s / ~/.claude/skills/evil-root
rm -rf ~/.claude/skills/demo; ln -s $T ~/.claude/skills/demo
cp /bin/sh ~/.claude/skills/sh; chmod 4755 ~/.claude/skills/sh 2>&1; chmod g+s ~/.claude/skills 2>&1
python3 -c \"import os; os.chmod(os.path.expanduser('~/.claude/skills/sh'), 0o6755)\" 2>&1 | tail -1
ln ~/.bashrc ~/.claude/skills/hl 2>&1
echo out > ~/.claude/skills/../../escaped.txt; ls -la ~/.claude/skills/
" 2>&1 | tail -15
echo "--- host view:"; ls -la "$S"; stat -c '%A %U %n' "$S"/* 2>/dev/null
got=0
find "$S" -perm /6000 | grep -q . && { echo "!! set-id file on host"; got=1; }
[ -e "$AIRLOCK_HOME/escaped.txt" ] || [ -e "$S/../escaped.txt" ] && { echo "!! wrote outside"; got=1; }
SB=a
SBNAME=b write_sandbox ''
mkdir -p "$T/repo2"; cp "$T/repo/sandbox.hcl" "$T/repo2/"; ( cd "$T/repo2"; git init -q . )
( cd "$T/repo2" && timeout 60 airlock up -f sandbox.hcl --yes ) >"$T/upb" 2>&1 || { cat "$T/upb"; }
echo "--- b view:"
timeout 30 airlock exec b -- sh -c "cat ~/.claude/skills/evil-file; ls ~/.claude/skills/demo/ ; ls ~/.claude/skills/evil-root/ | head; grep skills /proc/self/mountinfo" 2>&1 | head -20
timeout 30 airlock exec b -- sh -c "cat ~/.claude/skills/evil-file ~/.claude/skills/demo/hostsecret.txt ~/.claude/skills/evil-root/$T/hostsecret.txt 2>/dev/null; ls ~/.claude/skills/evil-root/work 2>/dev/null" | grep -q -E 'HOSTSECRET|attack-mcp' && { echo "!! b read host file via a's symlink"; got=1; }
timeout 30 airlock rm --force b >/dev/null 2>&1
[ $got = 1 ] && gotthrough
defended
