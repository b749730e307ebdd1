#!/bin/bash
# Clone mode. Committed blob with CRLF line ends plus a later .gitattributes
# "* text" (not round-trip: git add would normalize it to LF). Restat marks
# the checkout's entry clean, so the host base keeps HEAD's CRLF blob; the
# guest snapshot used to re-hash everything after chown. Checks: review
# with no agent change lists nothing (.gitattributes uncommitted, then committed with w.txt's CRLF blob left in HEAD; 4 fresh sandboxes each),
# and a real edit by the agent in that file IS listed.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo || exit 2
printf 'a\r\nb\r\n' > w.txt; echo x > other; write_sandbox clone
git -c core.autocrlf=false add -A && git commit -qm crlf || exit 2
echo '* text' > .gitattributes
for V in uncommitted committed; do
if [ $V = committed ]; then git add .gitattributes && git commit -qm attrs || exit 2; fi
git cat-file -p HEAD:w.txt | grep -q $'\r' || exit 2 # HEAD keeps the CRLF blob
# Whether git in the sandbox trusts Restat's stat data depends on the clock
# (an entry whose mtime is in the index file's second is "racy" and is
# hashed again): up to five fresh sandboxes.
for i in 1 2 3 4; do
	airlock rm --force $N >/dev/null 2>&1
	airlock up --yes >$T/up.log 2>&1 || { cat $T/up.log; exit 2; }
	st=$(airlock exec $N -- sh -c 'cd /workspace && git status --porcelain' 2>&1)
	airlock review $N --json >$T/review.json 2>$T/review.err
	n=$(python3 -c 'import json,sys;print(len(json.load(open(sys.argv[1])).get("files") or []))' $T/review.json)
	echo "$V .gitattributes, try $i: agent status [$st], files listed with no agent change: $n"
	[ "$n" = 0 ] || { echo "review lists w.txt (CRLF->LF) as the agent's change; the agent made none"; R=1; break 2; }
done
done
airlock exec $N -- sh -c 'cd /workspace && printf "a\r\nEVIL\r\n" > w.txt' || exit 2
airlock review $N --json >$T/review.json 2>$T/review.err || exit 2
python3 -c 'import json,sys;d=json.load(open(sys.argv[1]));sys.exit(0 if any(f["path"]=="w.txt" for f in d.get("files") or []) else 1)' $T/review.json || { echo "agent's edit of w.txt NOT listed"; R=1; }
finish
