#!/bin/sh
# Airlock's stand-in for OpenSSH's regress/test-exec.sh (see README.md).
# Usage: OBJ=DIR AIRLOCK_SSH_CONFIG=FILE AIRLOCK_SSH_HOST=HOST sh run.sh SCRIPT
SCRIPT=$1
SRC=$(cd "$(dirname "$SCRIPT")" && pwd)
: "${OBJ:?}" "${AIRLOCK_SSH_CONFIG:?}" "${AIRLOCK_SSH_HOST:?}"
export AIRLOCK_SSH_CONFIG AIRLOCK_SSH_HOST

SSH=ssh
SFTP=sftp
SCP=scp
SUDO=
EXEEXT=
DATANAME=data
DATA=$OBJ/$DATANAME
COPY=$OBJ/copy
# As test-exec.sh: a copy of ssh-agent. Except for sftp.sh, which gets its
# first 4 kB: its 5-byte-buffer runs make one round trip per 5 bytes, which
# over a real connection (not sftp-server on a pipe) takes minutes.
if [ "$(basename "$SCRIPT")" = sftp.sh ]; then
	head -c 4096 /usr/bin/ssh-agent > "$DATA"
else
	cat /usr/bin/ssh-agent > "$DATA"
fi
chmod u+w "$DATA"

# One multiplexed connection per run keeps the suite fast; both servers get
# the same treatment. sftp -D runs this "server" program.
SFTPSERVER=$OBJ/sftp-server-under-test
cat > "$SFTPSERVER" <<WRAP
#!/bin/sh
exec ssh -F "$AIRLOCK_SSH_CONFIG" -o ControlMaster=auto -o ControlPath="$OBJ/mux" -o ControlPersist=120 -s "$AIRLOCK_SSH_HOST" sftp
WRAP
chmod 755 "$SFTPSERVER"
ssh -F "$AIRLOCK_SSH_CONFIG" -o ControlMaster=yes -o ControlPath="$OBJ/mux" -o ControlPersist=120 -fN "$AIRLOCK_SSH_HOST"

CASE=""
CASE_FAILED=0
finish_case() {
	if [ -n "$CASE" ]; then
		if [ "$CASE_FAILED" = 0 ]; then echo "PASS $CASE"; else echo "FAIL $CASE"; fi
	fi
	CASE=""
	CASE_FAILED=0
}
verbose() { finish_case; CASE="$*"; }
trace() { :; }
fail() {
	echo "fail: $CASE: $*"
	if [ -z "$CASE" ]; then CASE="(before the first case)"; fi
	CASE_FAILED=1
}
fatal() { fail "$@"; finish_case; ssh -F "$AIRLOCK_SSH_CONFIG" -o ControlPath="$OBJ/mux" -O exit "$AIRLOCK_SSH_HOST" 2>/dev/null; exit 1; }
config_defined() { return 1; }
maybe_add_scp_path_to_sshd() { :; }

. "$SCRIPT"
finish_case
ssh -F "$AIRLOCK_SSH_CONFIG" -o ControlPath="$OBJ/mux" -O exit "$AIRLOCK_SSH_HOST" 2>/dev/null
exit 0
