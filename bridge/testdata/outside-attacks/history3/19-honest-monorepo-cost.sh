#!/bin/bash
# 19 (phase 1, noise check): 07's per-commit context cost for an honest
# project. The user's repo is an npm monorepo: a 3.5 MB package-lock.json
# (flat, realistic), NW workspaces (default 40) each with package.json
# (postinstall in a few) and a folder-open task at the root. The honest
# agent makes NC (default 100) one-line commits to src/.
# Got through (noise) = review or apply, extrapolated to 1,000 commits,
# over LIMIT seconds (default 600), while the same commits in a small
# repo cost seconds (07's control).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}; NC=${NC:-100}; NW=${NW:-40}; LIMIT=${LIMIT:-600}
NPKG=2 mkproj
NW=$NW python3 - <<'P'
import json,os
nw=int(os.environ["NW"]); pk={"name":"p","version":"1.0.0","private":True,"workspaces":["packages/*"],"scripts":{"build":"tsc -b","postinstall":"node tools/setup.js"}}
open("package.json","w").write(json.dumps(pk,indent=2)+"\n")
lock={"name":"p","version":"1.0.0","lockfileVersion":3,"requires":True,"packages":{}}
for i in range(9000):
    lock["packages"]["node_modules/dep%05d"%i]={"version":"1.%d.0"%(i%50),"resolved":"https://registry.npmjs.org/dep%05d/-/dep%05d-1.0.0.tgz"%(i,i),"integrity":"sha512-"+("%064x"%(i*7919))*2,"dev":i%3==0,"dependencies":{"dep%05d"%((i+1)%9000):"^1.0.0","dep%05d"%((i+7)%9000):"^1.0.0"}}
open("package-lock.json","w").write(json.dumps(lock,indent=2)+"\n")
for i in range(nw):
    d="packages/w%02d"%i; os.makedirs(d+"/src",exist_ok=True)
    w={"name":"w%02d"%i,"version":"1.0.0","main":"src/index.js","scripts":{"test":"node --test"}}
    if i%10==0: w["scripts"]["postinstall"]="node src/index.js"
    open(d+"/package.json","w").write(json.dumps(w,indent=2)+"\n"); open(d+"/src/index.js","w").write("module.exports = %d\n"%i)
os.makedirs(".vscode",exist_ok=True); os.makedirs("tools",exist_ok=True)
open("tools/setup.js","w").write('console.log("ok")\n')
open(".vscode/tasks.json","w").write('{"version":"2.0.0","tasks":[{"label":"watch","type":"npm","script":"build","runOptions":{"runOn":"folderOpen"}}]}\n')
P
echo "package-lock.json: $(du -h package-lock.json | cut -f1)"
write_sandbox "$MODE"; up_sandbox
s=$(date +%s); ag "i=0; while [ \$i -lt $NC ]; do echo \"// \$i\" >> src/extension.ts; git commit -qam \"step \$i\"; i=\$((i+1)); done"; echo "agent: $(( $(date +%s) - s )) s"
sleep 0.5
s=$(date +%s); airlock review "$N" > "$T/review.txt" 2>&1; rrc=$?; rt=$(( $(date +%s) - s )); echo "review rc=$rrc in $rt s"
s=$(date +%s); airlock apply "$N" --branch t-mono > "$T/apply.log" 2>&1; arc=$?; at=$(( $(date +%s) - s )); echo "apply rc=$arc in $at s: $(tail -1 "$T/apply.log" | cut -c1-200)"
echo "  bridge: $(bridge_hwm)"
er=$(( rt * 1000 / NC )); ea=$(( at * 1000 / NC )); echo "  at 1,000 commits: review ~$er s, apply ~$ea s"
if [ $er -gt $LIMIT ] || [ $ea -gt $LIMIT ]; then echo "  honest one-line commits in this repo would cost the host over $LIMIT s"; R=1; fi
finish
