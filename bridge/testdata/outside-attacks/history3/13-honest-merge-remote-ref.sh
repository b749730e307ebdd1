#!/bin/bash
# 13 (phase 1; V=atag phase 2; noise check): commits the host already
# has are the user's own (host branches and tags are excluded). A teammate's commit the user
# has only as a remote-tracking ref (refs/remotes/origin/main, after a
# `git fetch`; no local branch) adds a CI workflow (CI-TRIGGER high) and
# a package.json postinstall, then a second teammate commit takes the
# postinstall out again. The honest agent runs `git merge origin/main`
# (V=merge) or rebases onto it (V=rebase) and fixes one line.
# V=atag: the teammate commits are reachable from an ANNOTATED tag v2
# only (a release tag); V=ltag: a lightweight tag (control: excluded).
# Got through (noise) = apply refuses naming a commit the host already
# has (the teammate's).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; V=${V:-merge}
NPKG=2 mkproj; write_sandbox "$MODE"; git add -A; git commit -qm base
b=$(git rev-parse HEAD)
mkdir -p .github/workflows; printf 'on: pull_request_target\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          ref: ${{ github.event.pull_request.head.sha }}\n      - run: npm test\n' > .github/workflows/ci.yml
cp package.json /tmp/pkg.$$; printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc","postinstall":"node x.js"}}\n' > package.json
git add -A; git commit -qm "teammate: CI"; cp /tmp/pkg.$$ package.json; rm -f /tmp/pkg.$$; git commit -qam "teammate: no postinstall"
T1=$(git rev-parse HEAD)
case "$V" in atag) git tag -a -m "release 2" v2 "$T1"; UP=v2;; ltag) git tag v2 "$T1"; UP=v2;; *) git update-ref refs/remotes/origin/main "$T1"; UP=origin/main;; esac
git reset -q --hard "$b"
echo "host: $UP = $(git rev-parse --short "$UP^{commit}"), master = $(git rev-parse --short HEAD)"
up_sandbox
case "$V" in
merge|atag|ltag) ag 'git merge -q --no-edit '"$UP"'  && echo "// fix" >> src/extension.ts && git commit -qam fix && git log --oneline | head -5 | tr "\n" "|"';;
rebase) ag 'echo "// fix" >> src/extension.ts && git commit -qam fix && git rebase -q '"$UP"'  && git log --oneline | head -5 | tr "\n" "|"';;
esac
echo; sleep 0.5
try rem
fin=$(grep -o 'high flags not accepted: [A-Z, -]*' "$T/apply.log" | head -1 | sed 's/.*: //; s/ //g')
if [ -n "$fin" ]; then airlock apply "$N" --branch t-rem --accept "$fin" > "$T/apply.log" 2>&1; echo "  apply --accept $fin (the final tree's, the teammate's workflow) rc=$?: $(cut -c1-400 "$T/apply.log")"; fi
if grep -q "refusing" "$T/apply.log"; then
	for c in $(grep -o 'commit [0-9a-f]\{12\}' "$T/apply.log" | awk '{print $2}' | sort -u); do
		git merge-base --is-ancestor "$c" "$UP" 2>/dev/null && { echo "  refusal names $c, which the host has ($UP)"; R=1; }; done; fi
finish
