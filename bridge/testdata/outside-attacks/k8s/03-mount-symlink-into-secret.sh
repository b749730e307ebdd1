#!/bin/bash
# A read-only mount's contents travel in the sandbox's Secret. The mount's
# source is a folder of the (untrusted) repo holding symlinks to a host file
# outside it (absolute, relative, and to a directory). The bridge must not
# follow them into the Secret. Got through when the host file's contents are
# readable inside the pod or stored in the Secret.
. "$(dirname "$0")/lib.sh"
need_cluster
echo "HOSTSECRET-$$-xyz" > "$T/hostsecret"
mkdir -p data/sub && echo fine > data/ok.txt
ln -s "$T/hostsecret" data/leak
ln -s ../../../../../../../../..$T/hostsecret data/sub/rel
ln -s "$T" data/dirlink
write_sandbox "$N" 'mount "d" {
  source = "./data"
  target = "/mnt/d"
}'
up_sandbox "$N"
bad=0
inside "$N" 'cat /mnt/d/ok.txt' | grep -q fine || setup_error "the mount is not there"
if inside "$N" 'cat /mnt/d/leak /mnt/d/sub/rel /mnt/d/dirlink/hostsecret; grep -r . /mnt/d 2>/dev/null' 2>/dev/null | grep -q "HOSTSECRET-$$"; then
  echo "host file readable inside"; bad=1
fi
if kc get secret "airlock-$N" -o json | python3 -c 'import json,sys,base64
d=json.load(sys.stdin)["data"]; sys.exit(0 if any(sys.argv[1].encode() in base64.b64decode(v) for v in d.values()) else 1)' "HOSTSECRET-$$"; then
  echo "host file in the Secret"; bad=1
fi
result $bad
