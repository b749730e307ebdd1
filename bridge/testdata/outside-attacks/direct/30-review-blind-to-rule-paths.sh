#!/bin/bash
# 30: review is the last check before the user runs anything, and it is
# blind where the gate's rules are: a file that lands on a hidden path
# (here by the create race of 28, config/secret.txt) is left out of
# "airlock review" entirely, and one on a protected path (deploy/prod.yml)
# is a MEDIUM "unknown file", never "a protected path changed". Whatever
# put them there (a gate hole, a race), the user is not told.
# Defended: review names both paths and rates each HIGH (or the race
# cannot plant them at all).
SB=atk30
PROTECT='"deploy/prod.yml"'
HIDE='"config/secret.txt"'
. "$(dirname "$0")/lib.sh"
mkrepo; up
rmdir "$WS/config" 2>/dev/null
cat > "$WS/race.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
/* race DIR NAME TRIES: create stage/NAME while renaming stage to DIR */
int main(int argc, char **argv) {
	char f[256], g[256];
	snprintf(f, sizeof f, "stage/%s", argv[2]);
	snprintf(g, sizeof g, "%s/%s", argv[1], argv[2]);
	if (chdir("/workspace")) return 9;
	for (int i = 0; i < atoi(argv[3]); i++) {
		mkdir("stage", 0755);
		pid_t p = fork();
		if (p == 0) {
			int fd = open(f, O_CREAT | O_WRONLY, 0644);
			if (fd >= 0) { write(fd, "PWNED\n", 6); close(fd); }
			_exit(0);
		}
		int r = renameat2(AT_FDCWD, "stage", AT_FDCWD, argv[1], RENAME_NOREPLACE);
		waitpid(p, 0, 0);
		if (r == 0 && unlink(g) != 0 && rmdir(argv[1]) != 0) {
			printf("%s stuck in place after %d tries\n", g, i + 1);
			return 0;
		}
		unlink(f); rmdir(argv[1]); rmdir("stage");
	}
	printf("%s: not planted in %s tries\n", g, argv[3]);
	return 0;
}
C
ax sh -c 'cc -O2 -o /tmp/race /workspace/race.c || exit 9; rm -f /workspace/race.c
  /tmp/race deploy prod.yml ${TRIES:-5000}; /tmp/race config secret.txt ${TRIES:-5000}' 2>&1 | sed 's/^/  inside: /'
planted=0
for f in deploy/prod.yml config/secret.txt; do grep -q PWNED "$WS/$f" 2>/dev/null && planted=$((planted+1)); done
[ $planted = 0 ] && { echo "nothing planted (the gate held)"; defended; }
cd "$WS" && timeout 120 airlock review "$SB" > "$TOP/review.txt" 2>&1
sed 's/^/  review: /' "$TOP/review.txt"
R=0
for f in deploy/prod.yml config/secret.txt; do
  [ -e "$WS/$f" ] || continue
  grep -A3 "$f" "$TOP/review.txt" | grep -q HIGH || { echo "review does not rate $f HIGH (or does not list it)"; R=1; }
done
[ $R = 1 ] && succeeded
defended
