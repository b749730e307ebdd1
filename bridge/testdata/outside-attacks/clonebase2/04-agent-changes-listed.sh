#!/bin/bash
# Clone mode, namespace (Restat rewrote the clone's index stat data). The
# agent, right after up (same second as the clone), makes changes git could
# miss on stat data alone: a same-size edit with the mtime put back
# (touch -r), chmod +x only, a file replaced by a symlink to /etc/passwd, a
# delete, a file replaced by a directory, and a file left alone. Review
# must list each of the five (and not the untouched one) against the base.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo || exit 2
for f in same mode link del dir keep; do echo "content-$f" > $f.txt; done
write_sandbox clone; up_sandbox
airlock exec $N -- sh -c 'cd /workspace && cp -p same.txt /tmp/r && printf "CONTENT-same\n" > same.txt && touch -r /tmp/r same.txt &&
 chmod +x mode.txt && rm link.txt && ln -s /etc/passwd link.txt && rm del.txt && rm dir.txt && mkdir dir.txt && echo x > dir.txt/in && git status --porcelain' || exit 2
airlock review $N --json >$T/review.json 2>$T/review.err; echo "review rc=$?"; cat $T/review.err
python3 - $T/review.json <<'PY' || R=1
import json,sys
d=json.load(open(sys.argv[1])); got={f["path"] for f in d.get("files") or []}
print("listed:", sorted(got))
want={"same.txt","mode.txt","link.txt","del.txt"}
miss=want-got
if not ({"dir.txt","dir.txt/in"}&got): miss.add("dir.txt")
if miss: print("MISSING from review:", sorted(miss))
if "keep.txt" in got: print("untouched keep.txt listed")
sys.exit(1 if miss or "keep.txt" in got else 0)
PY
high_for link.txt && echo "link.txt flagged high" || echo "note: symlink to /etc/passwd not flagged high"
finish
