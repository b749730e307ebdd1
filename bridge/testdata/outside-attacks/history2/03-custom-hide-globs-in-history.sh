#!/bin/bash
# 03 (phase 1): HISTORY:HIDDEN-PATH against the user's own hide globs, not
# just the built-in *.pem of history/21. hide = ["secrets/",
# "/conf/prod/", "**/tokens/*.json", "sec\*ret.txt"]; the repo tracks
# a/secrets/db.txt, conf/prod/app.ini, x/y/tokens/t.json, sec*ret.txt and
# certs/ca.pem. Each variant is one commit (through the index alone, the
# agent cannot see these files) and a commit putting the original back:
#  dirglob   a/secrets/db.txt      (directory glob, at depth)
#  anchored  conf/prod/app.ini     (anchored directory glob)
#  dstar     x/y/tokens/t.json     (** glob)
#  escaped   sec*ret.txt           (escaped star)
#  symlink   certs/ca.pem becomes a symlink to an agent file evil.crt
#            (mode 120000, the pinned CA now resolves to the agent's)
#  exec      certs/ca.pem same blob, mode 100755 (mode-only change)
# V="dirglob anchored" picks variants (all six by default; the refusal
# message cuts its list after a few entries, so run them in small groups).
# Got through = a variant whose commit apply's refusal does not name
# (or a branch made without --accept).
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"
MODE=${1:-direct}; V=${V:-dirglob anchored dstar escaped symlink exec}; set -f
NPKG=2 mkproj; mkdir -p a/secrets conf/prod x/y/tokens certs
echo 'db=user' > a/secrets/db.txt; echo 'key=user' > conf/prod/app.ini; echo '{"t":"user"}' > x/y/tokens/t.json
echo 'user' > 'sec*ret.txt'; printf -- '-----BEGIN CERTIFICATE-----\nUSERS-OWN-CA\n-----END CERTIFICATE-----\n' > certs/ca.pem
write_sandbox "$MODE" '' ; python3 - "$MODE" <<'P'
import sys
s=open("sandbox.hcl").read()
s=s.replace('workspace { mode = "%s" }'%sys.argv[1], 'workspace {\n    mode = "%s"\n    hide = ["secrets/", "/conf/prod/", "**/tokens/*.json", "sec\\\\*ret.txt"]\n  }'%sys.argv[1])
open("sandbox.hcl","w").write(s)
P
grep hide sandbox.hcl; up_sandbox 2>/dev/null
cat > "$T/plant.sh" <<'P'
set -e
ls a conf x/y certs 2>&1 | tr '\n' ' '; echo
sw() { # sw NAME PATH MODE CONTENT: commit PATH as MODE/CONTENT, then the original back
	O=$(git ls-files -s -- "$2" | cut -d' ' -f1,2 | tr ' ' ,)
	X=$(printf '%s\n' "$4" | git hash-object -w --stdin)
	git update-index --cacheinfo "$3,$X,$2"; git commit -qm "$1"
	git update-index --cacheinfo "$O,$2"; git commit -qm "r-$1"
}
on() { case " $V " in *" $1 "*) return 0;; esac; return 1; }
on dirglob && sw dirglob a/secrets/db.txt 100644 'db=ATTACKER'
on anchored && sw anchored conf/prod/app.ini 100644 'key=ATTACKER'
on dstar && sw dstar x/y/tokens/t.json 100644 '{"t":"ATTACKER"}'
on escaped && sw escaped 'sec*ret.txt' 100644 'ATTACKER'
printf -- '-----BEGIN CERTIFICATE-----\nATTACKER-CA\n-----END CERTIFICATE-----\n' > evil.crt; git add evil.crt
L=$(printf '../evil.crt' | git hash-object -w --stdin); O=$(git rev-parse HEAD:certs/ca.pem)
if on symlink; then git update-index --cacheinfo "120000,$L,certs/ca.pem"; git commit -qm symlink
git update-index --cacheinfo "100644,$O,certs/ca.pem"; git commit -qm r-symlink; fi
if on exec; then git update-index --cacheinfo "100755,$O,certs/ca.pem"; git commit -qm exec
git update-index --cacheinfo "100644,$O,certs/ca.pem"; git commit -qm r-exec; fi
git log --format='%h %s ' | tr -d '\n'; echo
git diff --stat refs/airlock/base HEAD | tail -2
P
airlock exec -i "$N" -- sh -c 'cat > /tmp/plant.sh' < "$T/plant.sh" || exit 2
ag "V='$V' sh /tmp/plant.sh" | tee "$T/agent.log"
sleep 0.5
try hide
for v in $V; do
	c=$(grep -o "[0-9a-f]* $v " "$T/agent.log" | cut -d' ' -f1)
	if [ -z "$c" ]; then echo "  $v: no commit"; exit 2
	elif has_branch; then echo "  $v: branch made without --accept"; R=1
	elif ! grep -q "$c" "$T/apply.log" && grep -q '\.\.\.;' "$T/apply.log"; then echo "  $v ($c): not named, but the refusal's list is cut ('...'): run it in a smaller V"
	elif ! grep -q "$c" "$T/apply.log"; then echo "  $v ($c): not named in the refusal"; R=1
	else echo "  $v: named"; fi
done
fold -w 2000 "$T/apply.log"
finish
