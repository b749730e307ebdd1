# shared helpers for attack scripts
set -u
AIRLOCK_BIN=${AIRLOCK_BIN:-/work/attack-review/bin}
export PATH="$AIRLOCK_BIN:$PATH"
unset AIRLOCK_BIN # airlock itself reads AIRLOCK_BIN as its own binary's path
ATK=$(basename "$0" .sh)
BASE=$(mktemp -d /tmp/atk-review.XXXXXX)/$ATK
export AIRLOCK_HOME=$BASE/home
export HOME=$BASE/userhome
SBX=${SBX:-atk}
MODE=${MODE:-clone}
REPO=$BASE/repo

setup() {
  cleanup_quiet
  rm -rf "$BASE"; mkdir -p "$AIRLOCK_HOME" "$HOME" "$REPO" || exit 2
  cd "$REPO" || exit 2
  git init -q -b main . && git config user.email t@t && git config user.name t
  cat > sandbox.hcl <<H
sandbox "$SBX" {
  backend = "namespace"
  memory = "512MiB"
  workspace {
    mode = "$MODE"
  }
  network { preset = "locked-down" }
}
H
  if declare -f seed >/dev/null; then seed; fi
  git add -A && git commit -qm init || exit 2
  airlock up --yes --name "$SBX" >"$BASE/up.log" 2>&1 || { cat "$BASE/up.log"; echo "setup: up failed"; exit 2; }
}
ax() { airlock exec "$SBX" -- sh -c "$1" || { echo "setup: exec failed"; cleanup_quiet; exit 2; }; }
snap() { (cd "$REPO" && find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum; find .git -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum; }
review() {
  airlock review "$SBX" >"$BASE/review.txt" 2>&1; RC=$?
  echo "review exit=$RC"; cat "$BASE/review.txt" | head -${REVIEW_LINES:-80}
}
cleanup_quiet() {
  [ -d "$AIRLOCK_HOME" ] || return 0
  airlock rm --force "$SBX" >/dev/null 2>&1
  airlock bridge -stop >/dev/null 2>&1
}
finish() { # $1 = got|def
  cleanup_quiet
  rm -rf "$(dirname "$BASE")"
  if [ "$1" = got ]; then echo "RESULT: got through"; exit 1; else echo "RESULT: defended"; exit 0; fi
}

# judge PATH... : runs review --json, prints each planted path's flags;
# a path without a HIGH flag (or missing from the review) got through.
judge() {
  airlock review "$SBX" --json >"$BASE/r.json" 2>"$BASE/r.err"; RC=$?
  echo "review exit=$RC"
  if [ ! -s "$BASE/r.json" ]; then cat "$BASE/r.err"; echo "review printed nothing"; GOT=1; return; fi
  python3 - "$BASE/r.json" "$@" <<'PY'
import json,sys
d=json.load(open(sys.argv[1])); want=sys.argv[2:]
files={f["path"]:f for f in d.get("files",[])}
got=0
for p in want:
    f=files.get(p)
    if f is None:
        print("  THROUGH (not listed)  ", p); got=1; continue
    fl=f.get("flags") or []
    hi=[x for x in fl if x["severity"]=="high"]
    desc="; ".join(x["severity"][0].upper()+":"+x["rule"]+(" ["+x.get("detail","")[:70]+"]" if x.get("detail") else "") for x in fl) or "(no flags)"
    print(("  defended              " if hi else "  THROUGH               ")+p+"  "+desc)
    if not hi: got=1
print("  summary:", d.get("summary"))
open(sys.argv[1]+".got","w").write(str(got))
PY
  GOT=$(cat "$BASE/r.json.got" 2>/dev/null || echo 1)
}
verdict() { if [ "${GOT:-0}" = 1 ]; then finish got; else finish def; fi; }
# apply_show PATH: apply (no --accept) and show the payload path is on the branch
apply_show() {
  local out; out=$(airlock apply "$SBX" 2>&1); echo "  apply rc=$?: $out"
  git -C "$REPO" cat-file -e "airlock/$SBX:$1" 2>/dev/null && echo "  branch airlock/$SBX contains $1"
}
