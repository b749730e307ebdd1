#!/bin/bash
# 02: the namespace init now reads spec.json (+ spec-files) and opens its
# socket before it waits on the sync pipe, i.e. before the host has put it
# in the sandbox's cgroups. sandbox.hcl (untrusted, at most 1 MiB) sets
# env values; Go's JSON writes '<' as \u003c, so ~1 MiB of '<' becomes a
# ~6 MB spec.json the init decodes outside the sandbox's memory and CPU
# limits. Measured: the init's VmHWM and the time from "host exec returned"
# to "spec read" in init.log (AIRLOCK_INIT_TRACE=1), against a small file.
# Got through = more than 64 MiB or 1 s of pre-cgroup work from the file
# (numbers are printed either way).
. "$(dirname "$0")/../lib.sh"
export AIRLOCK_INIT_TRACE=1
mkdir -p "$T/repo" && cd "$T/repo" || exit 2
measure() { # NAME HCL-ENV-BODY
	cat > "$1.hcl" <<H
sandbox "$1" {
  backend = "namespace"
  workspace { mode = "mountless" }
  env = {
$2
  }
}
H
	airlock up -f "$1.hcl" --yes >"$T/up.log" 2>&1 || { cat "$T/up.log"; exit 2; }
	local d=$AIRLOCK_HOME/vm/namespace/$1 p
	p=$(awk '{print $1}' "$d/init.pid")
	hwm=$(awk '/VmHWM/{print $2}' /proc/$p/status)
	ms=$(awk '/host exec returned/{a=$2} /spec read/{b=$2} END{printf "%d", (b-a)/1000}' "$d/init.log")
	echo "$1: hcl $(stat -c %s "$1.hcl") B, spec.json $(stat -c %s "$d/spec.json") B, init VmHWM ${hwm} kB, exec->spec read ${ms} ms"
	airlock rm --force "$1" >/dev/null 2>&1
}
measure small '    E = "a"'
measure big "$(python3 -c 'print(",\n".join("    E%d = \"%s\"" % (i, "<" * 11000) for i in range(90)))')"
[ "$hwm" -gt 65536 ] || [ "$ms" -gt 1000 ] && R=1
echo "load: $(uptime)"
finish
