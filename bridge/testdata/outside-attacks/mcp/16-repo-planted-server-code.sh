#!/bin/bash
# As repository author: make the host run code the host did not declare by planting files the
# host's (legitimate) server command would pick up from its working directory: a python module
# shadowing `python3 -m`, a relative ./ binary, .npmrc node-options. The bridge is auto-started
# from inside the repository (cwd = repo) as a user would. Got through if a planted file runs.
source "$(dirname "$0")/lib.sh"
MARK="$T/planted-ran"
cat > "$T/srv/atk_real.py" <<P
import runpy; runpy.run_path("$T/srv/server.py", run_name="__main__")
P
cat > "$AIRLOCK_HOME/mcp.hcl" <<H
server "m" {
  command = ["/usr/bin/python3", "-m", "atk_real"]
  env = { REC = "$REC", PYTHONPATH = "$T/srv" }
}
server "r" {
  command = ["atkplanted"]
  env = { REC = "$REC" }
}
server "n" {
  command = ["/usr/bin/node", "-e", "require('$T/srv/none')"]
  env = { REC = "$REC" }
}
H
# planted by the repository
for f in atk_real.py atkplanted; do printf '#!/bin/sh\ntouch %s\n' "$MARK" > "$T/repo/$f"; done
printf 'import os; open("%s","w").write("x")\n' "$MARK" > "$T/repo/atk_real.py"; chmod +x "$T/repo/atkplanted"
printf 'node-options=--require %s/repo/evil.js\n' "$T" > "$T/repo/.npmrc"; printf 'require("fs").writeFileSync("%s","x")\n' "$MARK" > "$T/repo/evil.js"
cp "$T/repo/atkplanted" "$T/repo/node"
write_sandbox 'mcp "m" {}
  mcp "r" {}
  mcp "n" {}'
( cd "$T/repo" && git init -q . && PATH="$PATH:." timeout 60 airlock up -f sandbox.hcl --yes ) > "$T/up.out" 2>&1 || { cat "$T/up.out"; }
SB=atk
py_in "$CLIENT
for n in ['m','r','n']:
    try: sid,st,t=init('/mcp/'+n); print(n, st, t[:100])
    except Exception as e: print(n,'EXC',e)
" 2>&1
sleep 1
grep -o '"cwd": "[^"]*"' "$REC"
[ -e "$MARK" ] && gotthrough
defended
