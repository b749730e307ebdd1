# Shared by round history4. Each script starts with
#   D=$(cd "$(dirname "$0")" && pwd); . "$D/common.sh"
# This file sources the earlier rounds' harness (../lib.sh,
# ../ignwalk/common.sh, ../history/common.sh, ../history3/common.sh) from
# the directory above the script's own, or, when the round is not yet in
# the tree (run from /tmp/history4), from the repository's copy.
H=${D:?}/..
[ -f "$H/lib.sh" ] && [ -f "$H/history3/common.sh" ] || H=/work/main/bridge/testdata/outside-attacks
. "$H/lib.sh"; . "$H/ignwalk/common.sh"; . "$H/history/common.sh"; . "$H/history3/common.sh"
# commit_of SUBJECT: the commit on $BR whose subject is SUBJECT
commit_of() { git log --format='%H %s' "$BR" 2>/dev/null | grep " $1\$" | head -1 | cut -d' ' -f1; }
# wt SUBJECT: check out that commit of $BR into $T/wt (as the user would:
# git worktree add); wt_done removes it
wt() { local c; c=$(commit_of "$1"); [ -n "$c" ] || return 1; rm -rf "$T/wt"; git worktree add -q --detach "$T/wt" "$c" >/dev/null 2>&1; }
wt_done() { git worktree remove --force "$T/wt" >/dev/null 2>&1; rm -rf "$T/wt"; }
# npm_in DIR: npm install there (offline, no deps): runs the lifecycle scripts
npm_in() { (cd "$1" && timeout 60 npm install --offline --no-audit --no-fund >/dev/null 2>&1); }
# jsonc FILE: FILE as VS Code reads it (comments stripped, trailing commas
# tolerated) printed as JSON, or nothing
jsonc() { python3 - "$1" <<'P'
import json,re,sys
s=open(sys.argv[1],encoding="utf-8",errors="replace").read()
out=[];i=0;n=len(s);ins=False
while i<n:
    c=s[i]
    if ins:
        out.append(c)
        if c=="\\": out.append(s[i+1:i+2]); i+=2; continue
        if c=='"': ins=False
        i+=1; continue
    if c=='"': ins=True; out.append(c); i+=1; continue
    if s.startswith("//",i):
        j=s.find("\n",i); i=n if j<0 else j; continue
    if s.startswith("/*",i):
        j=s.find("*/",i+2); i=n if j<0 else j+2; continue
    out.append(c); i+=1
t=re.sub(r",\s*([}\]])",r"\1","".join(out))
try: print(json.dumps(json.JSONDecoder().raw_decode(t.strip())[0]))
except Exception as e: pass
P
}
# timed CMD...: run it, print the wall time and the bridge's peak RSS
timed() { local s=$(date +%s.%N) rc; "$@"; rc=$?; echo "  took $(python3 -c "print(round($(date +%s.%N)-$s,1))") s; bridge $(bridge_hwm | tr -s ' \t' ' ')"; return $rc; }
