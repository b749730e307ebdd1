# Shared by this round (sourced after ../lib.sh): an npm-shaped direct-mode
# project (mkproj: tracked src/, package.json, a .gitignore with
# node_modules/ and out/, and a synthetic node_modules of 120 packages
# written before the sandbox starts, so their ctimes are older than the
# baseline; NPKG packages, 120 unless set), rv (review into $T/review.json), listed, flags_of.
mkproj() {
	git init -q "$T/repo" && cd "$T/repo" || exit 2
	mkdir -p src && printf 'export function activate() {}\n' > src/extension.ts
	printf '{"name":"p","version":"1.0.0","main":"out/extension.js","scripts":{"build":"tsc"}}\n' > package.json
	printf 'node_modules/\nout/\n*.log\n' > .gitignore
	NPKG=${NPKG:-120} python3 - <<'P' || exit 2
import os
for i in range(int(os.environ["NPKG"])):
    d = "node_modules/pkg%03d" % i
    os.makedirs(d + "/lib/sub", exist_ok=True)
    open(d + "/package.json", "w").write('{"name":"pkg%03d","version":"1.0.0","main":"index.js"}\n' % i)
    open(d + "/index.js", "w").write("module.exports = require('./lib/a.js');\n")
    for f in ("a.js", "b.js", "sub/c.js"):
        open(d + "/lib/" + f, "w").write("module.exports = %d;\n" % i)
os.symlink("../pkg000/index.js", "node_modules/pkg001/lib/link.js")
P
	sleep 0.1
}
rv() { timeout "${2:-120}" airlock review "$N" --json >"$T/review.json" 2>"$T/review.err"; RRC=$?; echo "review rc=$RRC"; grep -v '^$' "$T/review.err" | tail -3; }
listed() { python3 -c 'import json,sys; print(" ".join(sorted(f["path"] for f in json.load(open(sys.argv[1])).get("files") or [])))' "$T/review.json"; }
# is_listed PATH: review.json lists PATH
is_listed() { case " $(listed) " in *" $1 "*) return 0;; esac; return 1; }
flags_of() { python3 -c 'import json,sys
for f in json.load(open(sys.argv[1])).get("files") or []:
    if f["path"]==sys.argv[2]: print(" ".join(x["rule"]+":"+x["severity"] for x in f.get("flags") or []))' "$T/review.json" "$1"; }
# bridge_rss: the bridge's VmHWM (kB), if one runs for this AIRLOCK_HOME
bridge_hwm() {
	local p; for p in $(pgrep -u "$(id -u)" -f 'airlock.*bridge' 2>/dev/null); do
		tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "AIRLOCK_HOME=$AIRLOCK_HOME" && grep VmHWM /proc/$p/status; done
}
