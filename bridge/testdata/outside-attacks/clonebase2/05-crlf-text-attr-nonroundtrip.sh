#!/bin/bash
# Clone mode. Committed blob with CRLF line ends plus a later .gitattributes
# "* text" (not round-trip: git add would normalize it to LF). Restat marks
# the checkout's entry clean, so the host base keeps HEAD's CRLF blob; the
# guest snapshot used to re-hash everything after chown. Checks: review
# with no agent change lists nothing but, at most, w.txt's CRLF->LF
# normalization as the agent's own git sees it (.gitattributes uncommitted,
# then committed with w.txt's CRLF blob left in HEAD; 4 fresh sandboxes
# each), and a real edit by the agent in that file IS listed.
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
	# Listed is git's own normalization, never anything else: where the
	# host's git had w.txt clean (its index not racy: the commit landed a
	# second after the file), the base keeps HEAD's CRLF blob, and the
	# agent's first `git status` (which shows " M w.txt") rewrites its
	# racy index and smudges the entry, so the snapshot hashes w.txt under
	# "* text": exactly a CRLF->LF change, which apply would bring. Where
	# the host's git had it modified, both sides hash it: nothing listed.
	if [ "$n" != 0 ]; then
		airlock diff $N w.txt >$T/w.diff 2>&1
		python3 - $T/review.json $T/w.diff <<'P' || { echo "review lists more than w.txt's CRLF->LF normalization; the agent made no change"; cat $T/w.diff; R=1; break 2; }
import json,sys
files=[f["path"] for f in json.load(open(sys.argv[1])).get("files") or []]
lines=open(sys.argv[2],"rb").read().split(b"\n")
minus=[l[1:] for l in lines if l.startswith(b"-") and not l.startswith(b"---")]
plus=[l[1:] for l in lines if l.startswith(b"+") and not l.startswith(b"+++")]
# (airlock diff shows a CR as "?": control characters never reach the terminal)
sys.exit(0 if files==["w.txt"] and minus in ([b"a\r",b"b\r"],[b"a?",b"b?"]) and plus==[b"a",b"b"] else 1)
P
		echo "  (w.txt listed as git's CRLF->LF normalization, as the agent's own git shows it)"
	fi
done
done
airlock exec $N -- sh -c 'cd /workspace && printf "a\r\nEVIL\r\n" > w.txt' || exit 2
airlock review $N --json >$T/review.json 2>$T/review.err || exit 2
python3 -c 'import json,sys;d=json.load(open(sys.argv[1]));sys.exit(0 if any(f["path"]=="w.txt" for f in d.get("files") or []) else 1)' $T/review.json || { echo "agent's edit of w.txt NOT listed"; R=1; }
finish
