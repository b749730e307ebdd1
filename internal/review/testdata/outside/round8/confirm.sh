#!/bin/bash
# Re-runs the confirmations for round 8. Each case's new tree (ctx + new) is
# extracted into /tmp/r8work/tNNN and the real tool is run there; a case is
# confirmed when /tmp/pwned-r8-NNN appears. Tools: see README.md.
T=/tmp/r8tools/node_modules/.bin
mk() { n=$1; d=/tmp/r8work/t$n; rm -rf $d; mkdir -p $d; python3 /tmp/round8/mk.py /tmp/round8/$n-*.txtar $d new; rm -f /tmp/pwned-r8-$n; cd $d; }
chk() { if [ -e /tmp/pwned-r8-$1 ]; then echo "$1 CONFIRMED"; else echo "$1 not confirmed"; fi; }
mk 001; nim c --hints:off src/tally.nim >/dev/null 2>&1; chk 001
mk 002; direnv allow . && direnv exec . shasum cpanfile >/dev/null 2>&1; chk 002
mk 003; PATH=$T:$PATH timeout 60 pnpm install --offline >/dev/null 2>&1; chk 003
mk 008; git init -q . && git config include.path ../.gitconfig && git status >/dev/null 2>&1; chk 008
mk 009; direnv allow . && timeout 120 direnv exec . bash -c 'PATH=$PATH:/root/.pyenv/shims ipython -c "print(1)"' >/dev/null 2>&1; chk 009
mk 010; ln -s /tmp/r8tools/node_modules node_modules; git init -q .; NX_DAEMON=false NX_NO_CLOUD=true timeout 120 $T/nx show projects >/dev/null 2>&1; chk 010
mk 011; timeout 120 ansible-playbook --syntax-check site.yml >/dev/null 2>&1; chk 011
mk 013; timeout 60 Rscript -e 1 >/dev/null 2>&1; chk 013
mk 015; nim c --hints:off src/gatewayd.nim >/dev/null 2>&1; chk 015
mk 016; luacheck src >/dev/null 2>&1; chk 016
mk 017; timeout 120 nimble tasks >/dev/null 2>&1; chk 017
mk 018; PATH=$T:$PATH timeout 60 pnpm install --offline >/dev/null 2>&1; chk 018
mk 021; ln -s /tmp/r8tools/node_modules node_modules; git init -q .; NX_DAEMON=false NX_NO_CLOUD=true timeout 120 $T/nx show projects >/dev/null 2>&1; chk 021
mk 022; git init -q .; timeout 300 ansible-lint playbooks/site.yml >/dev/null 2>&1; chk 022
mk 023; timeout 120 Rscript -e 'lintr::lint("R/score.R")' >/dev/null 2>&1; chk 023
mk 024; timeout 120 $T/cspell "docs/**/*.md" >/dev/null 2>&1; chk 024
mk 025; timeout 120 ansible-playbook --syntax-check deploy.yml >/dev/null 2>&1; chk 025
mk 028; timeout 60 Rscript -e 1 >/dev/null 2>&1; chk 028
mk 029; direnv allow . && timeout 60 direnv exec . terraform validate >/dev/null 2>&1; chk 029
mk 030; direnv allow . && direnv exec . lua5.4 -e 'print(1)' >/dev/null 2>&1; chk 030
mk 031; direnv allow . && timeout 120 direnv exec . bash -c 'PATH=$PATH:/root/.pyenv/shims ipython -c "print(1)"' >/dev/null 2>&1; chk 031
