#!/bin/bash
# 05 (phase 1, noise): the refusal for a history version says "pass
# --accept HISTORY:RULE"; the README says the same (and `--accept
# HIDDEN-PATH` for direct apply's hidden paths). An honest agent edits
# tests/conftest.py twice (C1 then C2: the pytest fixture the README
# itself lists as a benign exit 3). The user accepts the final tree's
# rules, then exactly the HISTORY: accepts the refusal prints. Got through
# (noise) = airlock rejects its own suggestion ("no review rule has that
# ID"), so honest history with any high flag can only be squashed.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/../history/common.sh"
MODE=${1:-direct}
# (Since stop 45 a change only inside a fixture's body is not high; the
# edits here are to module-level code discovery runs: LIMIT = int("N").)
NPKG=2 mkproj; mkdir -p tests && printf 'import pytest\n\nLIMIT = int("0")\n\n@pytest.fixture\ndef n():\n    return LIMIT\n' > tests/conftest.py
write_sandbox "$MODE"; up_sandbox
ag 'sed -i "s/int(\"0\")/int(\"1\")/" tests/conftest.py && git commit -qam c1 && sed -i "s/int(\"1\")/int(\"2\")/" tests/conftest.py && git commit -qam c2 && git log --oneline | head -3 | tr "\n" " "'; echo
sleep 0.5
try acc --accept AUTORUN-TARGET,IDE-AUTOBUILD
acc=$(grep -o -- '--accept HISTORY:[A-Za-z0-9-]*' "$T/apply.log" | sort -u | tr '\n' ' ')
[ -n "$acc" ] || { echo "no HISTORY: accept suggested"; fold -w 2000 "$T/apply.log"; exit 2; }
airlock apply "$N" --branch t-acc2 --accept AUTORUN-TARGET,IDE-AUTOBUILD $acc >"$T/apply2.log" 2>&1; rc=$?
echo "  apply with $acc rc=$rc: $(head -1 "$T/apply2.log")"
if grep -q "no review rule has that ID" "$T/apply2.log"; then echo "  the CLI rejects the accept its own refusal asks for"; R=1; fi
BR=t-acc2; has_branch && echo "  branch made"
finish
