#!/bin/bash
# 09: hidden files below an ignored directory are listed by the walk now
# (hiddenInStatus reads the walk's records). The user's
# node_modules/pkg050/lib/server.key (default hide *.key) is invisible to
# the agent, but the gate lets it rename an ancestor (pkg050 -> p50: the
# key stays hidden under any name). And the user edits
# node_modules/pkg051/lib/tls.pem on the host during the session. Defended
# = review reports the key gone from its old path and present at the new
# one, and tls.pem changed, each GUARDED-PATH high, no content shown.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; echo KEYDATA-1 > node_modules/pkg050/lib/server.key; echo PEMDATA-1 > node_modules/pkg051/lib/tls.pem
write_sandbox direct; up_sandbox
rv >/dev/null; [ "$(listed)" = "" ] || { echo "first review not empty: setup"; exit 2; }
airlock exec "$N" -- sh -c 'cd /workspace/node_modules; ls pkg050/lib | grep -q key && echo "agent SEES the key"; mv pkg050 p50 && echo "agent: pkg050 renamed"' || exit 2
echo PEMDATA-2 > node_modules/pkg051/lib/tls.pem
rv; echo "listed: $(listed)"
for p in node_modules/pkg050/lib/server.key node_modules/p50/lib/server.key node_modules/pkg051/lib/tls.pem; do
	f=$(flags_of "$p"); echo "$p: [$f]"
	case "$f" in *GUARDED-PATH:high*) ;; *) echo "MISSED or not high: $p"; R=1;; esac
done
grep -q "KEYDATA\|PEMDATA" "$T/review.json" && { echo "hidden content shown"; R=1; }
finish
