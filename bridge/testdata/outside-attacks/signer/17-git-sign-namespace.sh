#!/bin/bash
# git policy (approval=never): use the git signer for non-git material: ssh-keygen -Y sign -n file (namespace
# other than git), a plain file in namespace git, and direct airlock_gitSign RPC calls with a namespace field.
# A commit object is the control.
. "$(dirname "$0")/lib.sh"
fresh
up 'sandbox "atk" {
  backend = "namespace"
  memory = "512MiB"
  workspace { mode = "mountless" }
  network { preset = "locked-down" }
  signer {
    key "g" { ref = "ed" }
    policy "git" {
      key = "g"
      operations = ["git"]
      approval = "never"
    }
  }
}'
OUT=$(airlock exec atk -- sh -c 'cd /tmp; git config --system user.signingkey | sed s/^key::// > pub
printf "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor a <a@b> 0 +0000\ncommitter a <a@b> 0 +0000\n\nmsg\n" > c.txt
printf "I, the key owner, authorize release v9\n" > f.txt
/run/airlock/gitsign -Y sign -n git -f pub c.txt >/dev/null 2>&1 && echo "control_commit: signed" || echo "control_commit: refused"
/run/airlock/gitsign -Y sign -n file -f pub f.txt >/dev/null 2>&1 && echo "ns_file: SIGNED" || echo "ns_file: refused"
/run/airlock/gitsign -Y sign -n git -f pub f.txt >/dev/null 2>&1 && echo "plain_file_ns_git: SIGNED" || echo "plain_file_ns_git: refused"
printf "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" > t.txt; printf "blob\n" >> t.txt
for b in "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"airlock_gitSign\",\"params\":[{\"namespace\":\"file\"}]}" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"airlock_gitSign\",\"params\":[{\"namespace\":\"ssh-connection\"}]}"; do
  r=$(curl -s -XPOST -d "$b" $AIRLOCK_SIGNER); echo "$r" | grep -q "\"result\"" && echo "rpc_ns: SIGNED $r" || echo "rpc_ns: refused $r"; done')
echo "$OUT"
echo "$OUT" | grep -q "control_commit: signed" || setup_fail "control not signed"
echo "$OUT" | grep -q SIGNED && result got || result def
