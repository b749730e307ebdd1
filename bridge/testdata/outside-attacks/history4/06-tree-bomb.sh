#!/bin/bash
# 06 (phase 1): host memory of a tree bomb in history. Trees share
# subtrees, so NL levels of 16 entries make 16^NL paths from NL+1 small
# objects (~3 kB of objects for 16.7 M paths at NL=6). C1 adds bomb/ (the
# one tree), C2 removes it; the final tree is the base plus a src line.
# NC=k: k such commits (each a bomb with a different leaf blob).
# Measures review and apply wall time, the bridge's and CLI's peak RSS,
# and the peak RSS of the host git processes they run (sampled).
# Got through (host cost) = review or apply over 60 s, or a host process
# over 1 GB; a refusal that names the size, quickly, is defended.
# NL=5 (default, 16.7 M paths): the host's `git diff-tree --stdin -r -m
# --root` reaches ~4.2 GB in 4 s before review's 64 MiB listing cap stops
# it (git queues every pair of a commit before printing any).
# DO NOT run NL=6 (268 M paths) on a shared machine: it took the host
# (24 GB, no swap) into a global OOM; the kernel killed git at 24.3 GB.
D=$(cd "$(dirname "$0")" && pwd); . "$D/common.sh"
MODE=${1:-direct}; NL=${NL:-5}; NC=${NC:-1}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'P'
set -e
br=$(git symbolic-ref --short HEAD)
for c in $(seq 1 $NC); do
  t=$(printf 'x%s\n' "$c" | git hash-object -w --stdin); mode=100644; typ=blob
  for l in $(seq 0 $NL); do
    t=$(for i in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do printf '%s %s %s\tn%s\n' $mode $typ $t $i; done | git mktree); mode=040000; typ=tree
  done
  root=$( { git ls-tree HEAD; printf '040000 tree %s\tbomb%s\n' $t $c; } | git mktree)
  git update-ref refs/heads/$br $(git commit-tree $root -p HEAD -m "C$c bomb")
done
git read-tree HEAD~$NC; git reset -q --soft HEAD
echo "// x" >> src/extension.ts; git add src; git commit -qm "C9 drop"
git count-objects -vH | tr '\n' ' '; echo; git log --format='%h %s' | head -5 | tr '\n' '|'; echo
P
plant "$T/plant.sh" "NL=$NL NC=$NC"
sleep 0.5
echo "paths per bomb: $(python3 -c "print(16**($NL+1))")"
# sampler: the peak RSS of this user's host git diff-tree/ls-tree processes
( pk=0; while [ -d "$T" ] && [ ! -e "$T/stop" ]; do r=$(ps -u "$(id -u)" -o rss=,args= | grep -E '[g]it .*(diff-tree|ls-tree|cat-file)' | sort -n | tail -1 | awk '{print $1}'); [ "${r:-0}" -gt "$pk" ] && pk=$r && echo $pk > "$T/gitpeak"; sleep 0.5; done ) >/dev/null 2>&1 &
/usr/bin/time -f "  review CLI: %e s, %M kB max RSS" timeout 600 airlock review "$N" > "$T/review.txt" 2> "$T/review.err"; RRC=$?
echo "review rc=$RRC"; tail -3 "$T/review.err"; grep -E "HIGH|agent's commits|refus|budget|paths" "$T/review.txt" | cut -c1-250 | head -5
echo "  bridge after review: $(bridge_hwm)"
/usr/bin/time -f "  apply CLI: %e s, %M kB max RSS" timeout 600 airlock apply "$N" --branch t-bomb > "$T/apply.log" 2> "$T/apply.err"; ARC=$?
echo "apply rc=$ARC"; tail -qn 2 "$T/apply.log" "$T/apply.err" | cut -c1-300
echo "  bridge after apply: $(bridge_hwm)"
touch "$T/stop"; gp=$(cat "$T/gitpeak" 2>/dev/null || echo 0); echo "  host git peak RSS: $gp kB"
rt=$(grep -o 'review CLI: [0-9.]*' "$T/review.err" | grep -o '[0-9.]*$'); at=$(grep -o 'apply CLI: [0-9.]*' "$T/apply.err" | grep -o '[0-9.]*$')
hw=$(bridge_hwm | grep -o '[0-9]*' | head -1)
if python3 -c "import sys; sys.exit(0 if float('${rt:-0}')>60 or float('${at:-0}')>60 or int('${hw:-0}')>1000000 or int('${gp:-0}')>1000000 else 1)"; then echo "  host paid: review ${rt}s apply ${at}s bridge ${hw} kB, git ${gp} kB"; R=1; fi
finish
