#!/bin/bash
# Clone mode pushes the host folder "at the first start". After up, the user
# adds a file to the folder (it is not the agent's). The agent empties the
# workspace (and home's .airlock-home marker), then the sandbox is stopped
# and started: a bridge that decides "first start" from what it reads back
# on the claim would push the folder again, new file included. Got through
# when the file added after up shows up inside.
. "$(dirname "$0")/lib.sh"
need_cluster2
write_sandbox "$N"; up_sandbox "$N"
echo "added-after-up-$$" > "$P/later.txt"
inside "$N" 'rm -rf /workspace/* /workspace/.[!.]* ~/.airlock-home; ls -A /workspace | wc -l' || setup_error "wipe"
timeout 120 airlock stop "$N" >/dev/null 2>&1 && timeout 200 airlock start "$N" >"$T/start" 2>&1 || { cat "$T/start"; setup_error "restart"; }
inside "$N" 'ls -A /workspace; cat /workspace/later.txt 2>/dev/null' > "$T/after"
cat "$T/after"
grep -q "added-after-up-$$" "$T/after"; [ $? = 0 ] && gotthrough || defended
