#!/bin/bash
# `airlock save` reads the pod's home as `tar -cf -` found on the agent's
# PATH, so the agent writes the archive the host stores. Its archive: entries
# with "..", an absolute path, a symlink to the host's /tmp then a file
# through it, a hard link to /etc/shadow, a device, a set-uid file. The host
# must refuse or drop them when saving, and `up --template` (kubernetes and
# namespace) must never write outside the new sandbox. Got through when a
# marker appears in the host's /tmp, or the stored archive keeps "..", an
# absolute name, a hard link, a device or a set-uid bit.
. "$(dirname "$0")/lib.sh"
need_cluster
write_sandbox "$N"; up_sandbox "$N"
mk=TMPL-$$
inside "$N" "cat > /tmp/mk.py <<'E'
import tarfile,io,sys
t=tarfile.open(fileobj=sys.stdout.buffer,mode='w|')
drop=sys.argv[1:]
def f(name,data=b'pwned\n',**kw):
    if any(d in name for d in drop): return
    i=tarfile.TarInfo(name)
    for k,v in kw.items(): setattr(i,k,v)
    if i.type==tarfile.REGTYPE: i.size=len(data); t.addfile(i,io.BytesIO(data))
    else: t.addfile(i)
f('.bashrc',b'echo hi\n')
f('../../../../../../tmp/$mk-dotdot')
f('/tmp/$mk-abs')
f('evil',type=tarfile.SYMTYPE,linkname='/tmp')
f('evil/$mk-via-symlink')
f('hl',type=tarfile.LNKTYPE,linkname='/etc/shadow')
f('dev0',type=tarfile.CHRTYPE,devmajor=1,devminor=3)
f('suid',b'#!/bin/sh\nid\n',mode=0o4755)
t.close()
E
mkdir -p ~/.local/bin && cat > ~/.local/bin/tar <<'E'
#!/bin/sh
case \"\$*\" in *-cf*) exec python3 /tmp/mk.py \$(cat /tmp/drop 2>/dev/null);; esac
exec /usr/bin/tar \"\$@\"
E
chmod +x ~/.local/bin/tar" || setup_error "plant"
bad=0; saved=
for drop in "" "dotdot" "dotdot abs"; do
  inside "$N" "echo '$drop' > /tmp/drop"
  if airlock save "$N" "t$$" >"$T/save.out" 2>&1; then saved=1; break; fi
  echo "save refused (dropping '$drop' next): $(head -c 160 "$T/save.out")"
done
[ -n "$saved" ] || setup_error "save never succeeded"
ar=$(ls "$AIRLOCK_HOME"/templates/t$$/*.tar 2>/dev/null | head -1)
[ -n "$ar" ] || setup_error "no stored archive"
tar tvf "$ar" > "$T/list"; cat "$T/list"
grep -qE ' (/|\.\./)|/\.\./| -> |^h|^c|^b' <(grep -v '^l' "$T/list") && { echo "stored archive keeps a dangerous entry"; bad=1; }
grep -q '^-..s' "$T/list" && { echo "set-uid kept"; bad=1; }
for be in kubernetes namespace; do
  d=$T/p-$be; mkdir -p "$d"; cd "$d"; git init -q .
  printf 'sandbox "t%s-%s" {\n  backend = "%s"\n}\n' "$be" "$$" "$be" > sandbox.hcl
  git add -A; git commit -qm t; SBS="$SBS t$be-$$"
  timeout 200 airlock up --yes --template "t$$" >"$T/up-$be.log" 2>&1
  echo "$be: $(tail -c 200 "$T/up-$be.log")"
  timeout 120 airlock rm --force "t$be-$$" >/dev/null 2>&1
done
ls /tmp/$mk-* 2>/dev/null && { echo "host /tmp written"; bad=1; }
rm -f /tmp/$mk-*
result $bad
