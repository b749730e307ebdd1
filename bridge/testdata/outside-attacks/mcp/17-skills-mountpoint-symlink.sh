#!/bin/bash
# The mount targets ~/.claude/skills and ~/.codex/skills live in the agent's home. The agent
# replaces ~/.claude and ~/.codex with symlinks (to /etc/airlock, to a host-only path, to /) and
# ~/.claude/skills with a symlink; then stop/start re-mounts. Got through if the skills dir gets
# mounted on the host, over a path outside the home inside (e.g. /etc/airlock), or read-write.
source "$(dirname "$0")/lib.sh"
S="$AIRLOCK_HOME/skills"; mkdir -p "$S"; echo s > "$S/SKILL.md"
HOSTDIR="$T/hostonly"; mkdir -p "$HOSTDIR"
write_mcp_hcl ''
write_sandbox 'mcp "atk" {}'
up || die "up failed"
m0=$(grep -c skills /proc/self/mountinfo)
ax sh -c "rm -rf ~/.claude ~/.codex; ln -s /etc/airlock ~/.claude; ln -s $HOSTDIR ~/.codex; mkdir -p ~/.gemini; ls -la ~" 2>&1 | tail -4
timeout 30 airlock stop "$SB" >/dev/null 2>&1; timeout 40 airlock start "$SB" > "$T/start.out" 2>&1; echo "start rc=$? $(tail -1 $T/start.out)"
ax sh -c 'grep skills /proc/self/mountinfo; ls /etc/airlock; ls -la ~ | grep -E "claude|codex"' 2>&1 | cut -c1-160
echo "host mounts with skills: $(grep -c skills /proc/self/mountinfo) (before $m0)"; ls -la "$HOSTDIR"
got=0
[ "$(grep -c skills /proc/self/mountinfo)" -gt "$m0" ] && { echo "!! host mount"; got=1; }
[ -n "$(ls -A $HOSTDIR)" ] && { echo "!! host dir written"; got=1; }
ax sh -c 'grep skills /proc/self/mountinfo' | grep -v -E ' /home/agent/\.(claude|codex)/skills ' | grep -q . && { echo "!! skills mounted outside home"; got=1; }
ax sh -c 'grep skills /proc/self/mountinfo' | awk '{print $6}' | grep -q '^rw' && { echo "!! skills mounted rw"; got=1; }
# second round: symlink the skills path itself
ax sh -c 'rm -f ~/.claude ~/.codex; mkdir -p ~/.claude ~/.codex; rm -rf ~/.claude/skills; ln -s /etc ~/.claude/skills; ln -s /usr/bin ~/.codex/skills'
timeout 30 airlock stop "$SB" >/dev/null 2>&1; timeout 40 airlock start "$SB" > "$T/start.out" 2>&1; echo "start2 rc=$? $(tail -1 $T/start.out)"
ax sh -c 'grep skills /proc/self/mountinfo; ls /etc | head -3' 2>&1 | cut -c1-160
ax sh -c 'cat /proc/self/mountinfo' | grep "$S" | grep -v -E ' /home/agent/\.(claude|codex)/skills ' | grep -q . && { echo "!! skills mounted outside home (round 2)"; got=1; }
[ "$(grep -c skills /proc/self/mountinfo)" -gt "$m0" ] && { echo "!! host mount"; got=1; }
[ $got = 1 ] && gotthrough
defended
