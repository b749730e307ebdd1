# Shared setup for the outside-attack scripts (sourced, not run).
# Gives: B (airlock's dir, on PATH), T (temp dir, removed at exit), M (a
# marker path the planted command would create), N (sandbox name), R
# (0 = defended so far); write_sandbox MODE [EXTRA-HCL], up_sandbox,
# high_for PATH (is PATH flagged high in $T/review.json), finish.
set -u
B=${AIRLOCK_BIN:?set AIRLOCK_BIN to the directory holding airlock}; export PATH=$B:$PATH
unset AIRLOCK_BIN # airlock itself reads AIRLOCK_BIN as its own binary's path
T=$(mktemp -d /tmp/atk.XXXXXX); export AIRLOCK_HOME=$T/home; mkdir -p "$AIRLOCK_HOME"
M=$T/pwned; N=s$$; R=0
export GIT_AUTHOR_NAME=u GIT_AUTHOR_EMAIL=u@x GIT_COMMITTER_NAME=u GIT_COMMITTER_EMAIL=u@x
cleanup() { cd /; airlock rm --force "$N" >/dev/null 2>&1; airlock bridge -stop >/dev/null 2>&1; rm -rf "$T"; }
trap cleanup EXIT

# write_sandbox MODE [EXTRA]: a namespace sandbox.hcl in the current dir.
write_sandbox() {
	cat > sandbox.hcl <<H
sandbox "$N" {
  backend = "namespace"
  workspace { mode = "$1" }
  network { preset = "locked-down" }
${2:-}}
H
}

# up_sandbox: commit what is here and bring the sandbox up (exit 2 if it
# cannot). Only below this script's own $T: a setup that failed to cd there
# must not commit (git add -A) whatever folder it was started from.
up_sandbox() {
	case "$PWD" in "$T"/*) ;; *) echo "up_sandbox outside \$T: $PWD"; exit 2;; esac
	git add -A && git commit -qm init
	for i in 1 2 3; do airlock up --yes >"$T/up.log" 2>&1 && return; sleep 1; done
	cat "$T/up.log"; exit 2
}

high_for() {
	python3 - "$T/review.json" "$1" <<'P'
import json,sys
try: d=json.load(open(sys.argv[1]))
except Exception: sys.exit(1)
for f in d.get("files") or []:
    if f["path"]==sys.argv[2] and any(x["severity"]=="high" for x in f.get("flags") or []): sys.exit(0)
sys.exit(1)
P
}

finish() {
	[ "$R" = 1 ] && echo "RESULT: attack SUCCEEDED" || echo "RESULT: defended"
	exit "$R"
}
