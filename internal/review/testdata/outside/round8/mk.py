#!/usr/bin/env python3
# extract ctx/ + <side>/ files of a txtar into outdir (for confirmation runs)
import sys, os, re
src, out = sys.argv[1], sys.argv[2]
side = sys.argv[3] if len(sys.argv) > 3 else "new"
data = open(src, 'rb').read().decode('utf-8')
parts = re.split(r'(?m)^-- (.+?) --\n', data)
for i in range(1, len(parts), 2):
    name, body = parts[i], parts[i+1]
    mode = None
    m = re.match(r'(.*)@(1[0-9]{5})$', name)
    if m: name, mode = m.group(1), m.group(2)
    top, _, rel = name.partition('/')
    if top not in ('ctx', side): continue
    p = os.path.join(out, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    if mode == '120000':
        os.symlink(body.rstrip('\n'), p); continue
    with open(p, 'wb') as f: f.write(body.encode('utf-8'))
    if mode == '100755': os.chmod(p, 0o755)
