#!/bin/bash
# Clone mode: the base commit is made on the host and its id kept in the
# bridge's state, but the commit object and refs/airlock/base live in the
# copy the agent owns, and FetchBase brings them in the background after
# start. The agent, first thing after up, writes a package.json with a
# postinstall, commits its work, points refs/airlock/base at a commit of
# its current tree and deletes the real base's loose object (racing the
# fetch). Does review still list package.json (or fail loudly), never show
# an empty change set?
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo && echo hi > README && write_sandbox clone
echo dirty > dirty.txt   # uncommitted at up: the base is a commit of its own, only in the copy
git add README sandbox.hcl && git commit -qm init || exit 2
airlock up --yes >"$T/up.log" 2>&1 & UP=$!
# the agent starts as soon as the sandbox answers
for i in $(seq 1 100); do airlock exec $N -- true >/dev/null 2>&1 && break; sleep 0.05; done
airlock exec $N -- sh -c 'export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b; cd /workspace && b=$(git rev-parse refs/airlock/base) &&
  printf "{\"scripts\":{\"postinstall\":\"id>/tmp/pwn\"}}" > package.json && git add -A && git -c user.name=a -c user.email=a@b commit -qm work &&
  fake=$(git commit-tree HEAD^{tree} -p HEAD -m "airlock snapshot") && git update-ref refs/airlock/base $fake &&
  rm -f .git/objects/$(echo $b | cut -c1-2)/$(echo $b | cut -c3-) && echo "base $b replaced by $fake"' 2>&1
wait $UP || { cat $T/up.log; exit 2; }
airlock review $N --json >$T/review.json 2>$T/review.err; RRC=$?; echo "review exit=$RRC $(head -c 300 $T/review.err)"
if [ -s $T/review.json ]; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("base:",d.get("base"),"listed:",[f["path"] for f in d.get("files") or []])' $T/review.json 2>/dev/null
	grep -q '"package.json"' $T/review.json || { echo "review did not list package.json"; R=1; }
else echo "review failed (loudly): nothing hidden"; fi
finish
