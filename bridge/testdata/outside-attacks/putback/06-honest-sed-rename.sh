#!/bin/bash
# 06 (noise): an honest rename across the tree, the way agents do it:
# `sed -i 's/activate/activateExtension/' $(git ls-files)`. sed -i writes
# every file it visits anew (a new inode), changed or not. The user had
# reviewed once while the agent worked, and reviews again a second after
# the agent says it is done. Every unchanged tracked file now "holds the
# content the last review saw" with a new inode: PUT-BACK high on
# package.json, Makefile, .gitignore (and unchanged files listed as
# modified). Got through (noise) = any PUT-BACK high.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
mkproj; printf 'build:\n\tnpx tsc\n' > Makefile; write_sandbox direct; up_sandbox
honest 'printf "export function activate() { console.log(1) }\n" > src/extension.ts'
rv >/dev/null; echo "mid-task review rc=$RRC: $(listed)"
sleep 1; honest 'sed -i "s/activate/activateExtension/g" $(git ls-files)'
sleep 1; rv >/dev/null
noise_verdict
finish
