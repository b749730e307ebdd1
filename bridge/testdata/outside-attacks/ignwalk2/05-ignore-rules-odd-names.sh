#!/bin/bash
# 05: review's survey (git status --ignored=matching + the Go walk) vs
# what git's traditional listing would list, on states the agent shapes:
# a .gitignore it writes with negations (node_modules/* then
# !node_modules/keep/, and a .gitignore inside an ignored package with
# "!*"), a tracked file inside an ignored directory (out/keep.txt, with
# a new ignored out/new.js beside it), names with a newline, a tab,
# non-UTF-8 bytes and case twins in node_modules, a hard link in
# node_modules to a tracked file. Defended = every new or changed path
# (or its escaped form) is listed.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"
NPKG=20 mkproj; mkdir -p out && echo keep > out/keep.txt && git add -f out/keep.txt
write_sandbox direct; up_sandbox
airlock exec "$N" -- python3 -c '
import os
os.chdir("/workspace")
open(".gitignore","a").write("node_modules/*\n!node_modules/keep/\n")
os.makedirs("node_modules/keep", exist_ok=True); open("node_modules/keep/k.js","w").write("evil1\n")
open("node_modules/pkg003/.gitignore","w").write("!*\n"); open("node_modules/pkg003/n.js","w").write("evil2\n")
open("out/keep.txt","a").write("evil3\n"); open("out/new.js","w").write("evil4\n")
open(b"node_modules/pkg004/a\nb.js","w").write("evil5\n")
open(b"node_modules/pkg005/t\tb.js","w").write("evil6\n")
open(b"node_modules/pkg006/\xff\xfe.js","w").write("evil7\n")
open("node_modules/pkg007/Index.js","w").write("evil8\n")
os.link("src/extension.ts", "node_modules/pkg008/hl.js")
' || exit 2
rv; L=$(listed); echo "listed: $L"
miss=
for p in .gitignore node_modules/keep/k.js node_modules/pkg003/n.js out/keep.txt out/new.js node_modules/pkg007/Index.js node_modules/pkg008/hl.js; do
	case " $L " in *" $p "*) ;; *) miss="$miss $p";; esac
done
for pat in 'pkg004/a' 'pkg005/t' 'pkg006/'; do
	python3 -c 'import json,sys; fs=[f["path"] for f in json.load(open(sys.argv[1])).get("files") or []]; sys.exit(0 if any(sys.argv[2] in p and "package.json" not in p for p in fs) else 1)' "$T/review.json" "$pat" || miss="$miss $pat*"
done
[ -n "$miss" ] && { echo "not listed:$miss"; R=1; }
finish
