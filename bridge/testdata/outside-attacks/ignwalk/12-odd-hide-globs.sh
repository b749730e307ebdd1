#!/bin/bash
# 12: the GlobSet fast path (literal prefix/suffix before path.Match)
# with hide patterns whose literal ends are not plain: an escaped star
# (sec\*ret.txt), a class at the end (*[.]p12), two stars (a*b*c.cfg), a
# ? in the middle (tok?n), next to the defaults. The gate and review's
# hidden listing must agree: files under node_modules/pkg070 (walked) and
# at the root (git). Defended = the agent sees exactly the files no
# pattern matches (secXret.txt, b.cfg, tokn), and after the user changes
# every file on the host, review reports each hidden one as GUARDED-PATH
# without content, and lists the agent's edit of secXret.txt as usual.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; set -f # the names below hold * and ?
names='sec*ret.txt secXret.txt cert.p12 aXbYc.cfg abc.cfg b.cfg token tokn'
hidden='sec*ret.txt cert.p12 aXbYc.cfg abc.cfg token'
for d in node_modules/pkg070 .; do for f in $names; do echo "DATA-$f" > "$d/$f"; done; done
printf '*.txt\n*.cfg\n*.p12\ntok*\n' >> .gitignore
cat > sandbox.hcl <<H
sandbox "$N" {
  backend = "namespace"
  workspace {
    mode = "direct"
    hide = ["sec\\\\*ret.txt", "*[.]p12", "a*b*c.cfg", "tok?n"]
  }
  network { preset = "locked-down" }
}
H
grep hide sandbox.hcl; up_sandbox
rv >/dev/null
seen=$(airlock exec "$N" -- sh -c 'cd /workspace/node_modules/pkg070 && ls -A | grep -v -e lib -e index.js -e package.json | sort | tr "\n" " "; cd /workspace && ls -A | grep -e txt -e cfg -e p12 -e tok | sort | tr "\n" " "') || exit 2
echo "agent sees: $seen"
[ "$seen" = "b.cfg secXret.txt tokn b.cfg secXret.txt tokn " ] || { echo "agent's view differs from the hide globs"; R=1; }
airlock exec "$N" -- sh -c 'echo agent-edit > /workspace/node_modules/pkg070/secXret.txt' || exit 2
for d in node_modules/pkg070 .; do for f in $hidden; do echo "NEW-$f" > "$d/$f"; done; done
rv; echo "listed: $(listed)"
for d in node_modules/pkg070 .; do for f in $hidden; do p=${d#./}/$f; p=${p#./}
	case "$(flags_of "$p")" in *GUARDED-PATH:high*) ;; *) echo "hidden $p not reported GUARDED-PATH"; R=1;; esac
done; done
is_listed node_modules/pkg070/secXret.txt || { echo "agent edit of secXret.txt MISSED"; R=1; }
grep -q 'DATA-\|NEW-' "$T/review.json" && { echo "hidden content in the review"; R=1; }
finish
