#!/bin/bash
# 07 (phase 1): host CPU through the per-commit context. Every commit is
# judged with its own tree around it (an unchanged package.json decides
# what a changed script is). C0 makes package.json a 3.6 MB document of
# ~1.8 M nested arrays (history/22's costly parse, under the 4 MiB read
# limit; the scripts are the user's); then NC commits (default 200) each
# change one line of src/extension.ts (TGT=1: and tools/setup.js, which
# the user's postinstall runs: each such commit is then flagged);
# the last puts package.json back. Versions beyond the final tree: NC
# small ones plus one big one, far under the budgets.
# NP=k: k copies of it (pk1/package.json ...), to see whether each one
# costs every commit again. CONTROL=1: the same without the big file.
# Got through = review or apply, extrapolated to the 1,000-commit cap
# (seconds per commit x 1000), takes over LIMIT seconds (default 600) for
# what costs the agent ~1 MB and a few seconds (the host pays per commit,
# with no budget on context reads).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; NC=${NC:-60}; CONTROL=${CONTROL:-0}; LIMIT=${LIMIT:-600}; DEPTH=${DEPTH:-1800000}; TGT=${TGT:-0}; NP=${NP:-1}
NPKG=2 mkproj; mkdir -p tools && echo 'console.log("setup ok")' > tools/setup.js
printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc","postinstall":"node tools/setup.js"}}\n' > package.json
write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'P'
set -e
cp package.json /tmp/pkg
if [ "$CONTROL" != 1 ]; then python3 -c "
import sys; d=int(sys.argv[1])
sys.stdout.write('{\"name\":\"p\",\"version\":\"1.0.0\",\"main\":\"out/extension.js\",\"scripts\":{\"build\":\"tsc\",\"postinstall\":\"node tools/setup.js\"},\"x\":'+'['*d+']'*d+'}\n')" $DEPTH > package.json
k=1; while [ $k -lt "$NP" ]; do mkdir -p pk$k; cp package.json pk$k/package.json; k=$((k+1)); done
git add -A; git commit -qm "C0 deps"; fi
i=0; while [ $i -lt $NC ]; do echo "// $i" >> src/extension.ts; [ "$TGT" = 1 ] && echo "console.log(\"setup ok $i\")" > tools/setup.js; git commit -qam "step $i"; i=$((i+1)); done
cp /tmp/pkg package.json; rm -rf pk*; echo 'console.log("setup ok")' > tools/setup.js; git add -A; git commit -qm "tidy" --allow-empty
git rev-list --count HEAD; du -sh "$(git rev-parse --git-dir)/objects" | cut -f1
P
s=$(date +%s); plant "$T/plant.sh" "NC=$NC CONTROL=$CONTROL DEPTH=$DEPTH TGT=$TGT NP=$NP" | tr '\n' ' '; echo " (agent: $(( $(date +%s) - s )) s)"
sleep 0.5
s=$(date +%s); timeout 3600 airlock review "$N" > "$T/review.txt" 2>&1; rrc=$?; rt=$(( $(date +%s) - s )); echo "review rc=$rrc in $rt s"; grep -c "agent's commits" "$T/review.txt"
s=$(date +%s); timeout 3600 airlock apply "$N" --branch t-cost $(grep -o 'commit [0-9a-f]\{12\}:' "$T/review.txt" | sort -u | sed 's/commit /--accept HISTORY:/; s/:$//') > "$T/apply.log" 2>&1; arc=$?; at=$(( $(date +%s) - s ))
echo "apply rc=$arc in $at s: $(tail -1 "$T/apply.log" | cut -c1-300)"
echo "  bridge: $(bridge_hwm)"
er=$(( rt * 1000 / NC )); ea=$(( at * 1000 / NC )); echo "  at 1,000 commits: review ~$er s, apply ~$ea s"
if [ $er -gt $LIMIT ] || [ $ea -gt $LIMIT ]; then echo "  the host would spend over $LIMIT s on commits of one line each"; R=1; fi
finish
