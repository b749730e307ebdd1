#!/bin/bash
# Clone mode. The user's GLOBAL git config has a smudge/clean filter
# driver (as git-lfs installs: filter.lfs.process). Committed repository
# content (an earlier agent's .gitattributes "* filter=x", applied) chooses
# which files it runs on. wsclone's host `git clone` / `git status` read
# the global config (hostgit sets GIT_CONFIG_NOSYSTEM but not
# GIT_CONFIG_GLOBAL), so the driver runs as host root during up, on
# content chosen by the repository. (copyCommit sets GIT_CONFIG_GLOBAL=
# /dev/null.) Here the driver is a script that records it ran.
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
cat > $T/drv.sh <<D
#!/bin/sh
echo "\$(id -u) \$1" >> $M
cat
D
chmod +x $T/drv.sh
export GIT_CONFIG_GLOBAL=$T/gitconfig
printf '[filter "x"]\n\tsmudge = %s smudge\n\tclean = %s clean\n' $T/drv.sh $T/drv.sh > $GIT_CONFIG_GLOBAL
git init -q $T/repo && cd $T/repo || exit 2
echo code > a.txt; write_sandbox clone
GIT_CONFIG_GLOBAL=/dev/null git add -A && GIT_CONFIG_GLOBAL=/dev/null git commit -qm init || exit 2
echo '* filter=x' > .gitattributes; GIT_CONFIG_GLOBAL=/dev/null git add .gitattributes && GIT_CONFIG_GLOBAL=/dev/null git commit -qm attrs || exit 2
rm -f $M
airlock up --yes >$T/up.log 2>&1 || { cat $T/up.log; exit 2; }
if [ -e $M ]; then echo "global filter driver ran on the host during up (uid, mode):"; cat $M; R=1; fi
finish
