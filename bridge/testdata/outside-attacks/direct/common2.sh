# Shared setup for the second round on the workspace gate (10-19; sourced
# after lib.sh's variables are set): a folder with protected files at three
# depths and two hidden globs, as the tester had it.
HIDE='"keys/**", "secret.txt"'
PROTECT='"prot/**", "Makefile", "top/mid/deep/x"'
PRE_SETUP='echo orig > Makefile; mkdir -p prot top/mid/deep; echo p > prot/f; echo t > top/mid/deep/x'
