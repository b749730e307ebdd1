#!/bin/bash
# 02: hide = ["keys/prod.txt"]; keys/ does not exist yet. The agent plants a symlink keys -> keys2.
# Later the user (or a tool) writes keys/prod.txt on the host; it lands in keys2/prod.txt, which the
# gate does not hide (it matches the path, not the resolved file). The agent reads the secret.
SB=atk02
HIDE='"keys/prod.txt"'
. "$(dirname "$0")/lib.sh"
mkrepo; up
ax bash -c 'cd /workspace && mkdir keys2 && ln -s keys2 keys' || echo "  payload refused inside (the workspace gate)"
# host: user creates the secret after the sandbox started
mkdir -p "$WS/keys" && echo "TOPSECRET-02-$$" > "$WS/keys/prod.txt" || setup_error "host write"
sleep 2
OUT=$(ax bash -c 'cat /workspace/keys2/prod.txt 2>/dev/null; cat /workspace/keys/prod.txt 2>/dev/null')
echo "agent read: $OUT"
echo "$OUT" | grep -q "TOPSECRET-02-$$" && succeeded
defended
