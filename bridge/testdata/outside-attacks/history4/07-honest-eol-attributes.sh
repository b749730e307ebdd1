#!/bin/bash
# 07 (phase 1): noise. history3/23's fix refuses PARSE-FAIL in history
# once a commit's .gitattributes "converts content". Many repositories
# carry `* text=auto eol=lf` (line ends only; JSON does not care).
#   V=wip (default): the USER's repo has that .gitattributes; the honest
#   agent commits a WIP package.json with a trailing comma, fixes it next
#   commit (history/18: a PARSE-FAIL no consumer runs is not refused).
#   V=addattr: the honest agent adds `* text=auto eol=lf` and
#   `*.sh text eol=lf` itself (final tree), plus the same WIP history.
# Got through (noise) = apply refuses the honest work (or the final
# .gitattributes is high).
D=$(cd "$(dirname "$0")" && pwd); . "$D/common.sh"
MODE=${1:-direct}; V=${V:-wip}
NPKG=2 mkproj; [ "$V" = wip ] && printf '* text=auto eol=lf\n' > .gitattributes
write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'P'
set -e
[ "$V" = addattr ] && { printf '* text=auto eol=lf\n*.sh text eol=lf\n' > .gitattributes; git add .gitattributes; git commit -qm "normalize line endings"; }
printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc","lint":"eslint src",}}\n' > package.json; git commit -qam "WIP lint"
printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc","lint":"eslint src"}}\n' > package.json; git commit -qam "fix json"
git log --format='%h %s' | tr '\n' '|'; echo
P
plant "$T/plant.sh" "V=$V"
sleep 0.5
try eol
grep -o 'refusing[^(]*' "$T/apply.log" | head -2
[ "$V" = addattr ] && echo "  .gitattributes: $(flags_of .gitattributes)"
if [ "$ARC" != 0 ]; then echo "  honest work refused"; R=1; fi
finish
