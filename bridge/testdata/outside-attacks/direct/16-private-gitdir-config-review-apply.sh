#!/bin/bash
# 16: the agent commits and plants fsmonitor, pager, diff.external,
# sshCommand, hooksPath, a clean filter, an alias and hooks in the
# workspace's .git; the user runs review, apply and host git.
SB=atk16
. "$(dirname "$0")/common2.sh"; . "$(dirname "$0")/lib.sh"
mkrepo; up
M=$TOP/pwn16
ax sh -c "cd /workspace; git config core.fsmonitor 'touch $M.fsm; false'; git config core.pager 'touch $M.pager; cat'
  git config diff.external 'touch $M.diffext'; git config core.sshCommand 'touch $M.ssh'; git config core.hooksPath /workspace/hk
  git config filter.x.clean 'touch $M.filter; cat'; git config alias.status '!touch $M.alias'
  mkdir -p hk .git/hooks; for h in pre-commit post-checkout reference-transaction post-merge post-index-change; do
    printf '#!/bin/sh\ntouch $M.hook\n' > .git/hooks/\$h; cp .git/hooks/\$h hk/\$h; chmod +x .git/hooks/\$h hk/\$h; done
  echo '* filter=x' > .gitattributes; echo new > newfile" 2>&1 | sed 's/^/  inside: /'
[ -f "$WS/newfile" ] || setup_error "the agent's file was not written"
timeout 60 airlock review "$SB" >/dev/null 2>&1; echo "  review exit $?"
timeout 60 airlock review "$SB" --json >/dev/null 2>&1
timeout 60 airlock apply "$SB" 2>&1 | tail -2 | sed 's/^/  apply: /'
(cd "$WS" && timeout 10 git status >/dev/null 2>&1; timeout 10 git log -p --all >/dev/null 2>&1; timeout 10 git diff HEAD >/dev/null 2>&1)
ls "$M".* >/dev/null 2>&1 && { ls "$M".*; succeeded; }
defended
