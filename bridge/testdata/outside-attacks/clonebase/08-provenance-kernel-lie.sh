#!/bin/bash
# Provenance's kernel release now comes from the backend (namespace: the
# host's) instead of `uname -r` run over SSH. The agent plants a fake uname
# in ~/.local/bin, ~/bin and a shell function in ~/.profile/.bashrc, then the
# sandbox is stopped and started (provenance is written again). Does
# provenance.json record the agent's kernel string?
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
git init -q $T/repo && cd $T/repo && echo hi > README && write_sandbox clone
up_sandbox
airlock exec $N -- sh -c 'for d in ~/.local/bin ~/bin; do mkdir -p $d; printf "#!/bin/sh\necho 9.9.9-agent-fake\n" > $d/uname; chmod +x $d/uname; done
  for f in ~/.profile ~/.bashrc; do printf "uname() { echo 9.9.9-agent-fake; }\nexport PATH=\$HOME/.local/bin:\$PATH\n" >> $f; done' || exit 2
airlock stop $N >/dev/null 2>&1 && airlock start $N >/dev/null 2>&1 || { echo "setup: restart failed"; exit 2; }
P=$AIRLOCK_HOME/sandboxes/$N/provenance.json
k=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("kernel"))' $P) || exit 2
echo "provenance kernel: $k (host: $(uname -r))"
[ "$k" = "$(uname -r)" ] || { echo "provenance kernel is not the host's"; R=1; }
finish
