// Package sshd is Airlock's embedded SSH/SFTP server. It runs inside every
// sandbox (started in-process by the sandbox init, or standalone as
// `airlock-agent sshd`) and is what VS Code Remote-SSH, OpenSSH's ssh, scp,
// sftp, rsync, git, sshfs, npm ssh2 clients and the host's `airlock bridge`
// attach to.
//
// It is built on github.com/gliderlabs/ssh (connection handling, handshake,
// channel and global-request dispatch), but it does not use gliderlabs'
// Session type: sessions, forwards and the SFTP subsystem are handled here
// on raw x/crypto/ssh channels, because the upstream paths wait for the
// client's EOF before a command may finish (stdin), rewrite "\n" to "\r\n"
// on PTYs, drop data after a TCP half-close, and close channels without EOF.
// The SFTP server (sftpserver.go) is our own and follows OpenSSH's
// sftp-server, extensions included; tests compare it, with real clients and
// other projects' suites, against OpenSSH's sshd in the same run.
//
// Trust boundary: this is guest-side code and imports nothing host-side.
// It trusts its Config (host key, authorized keys, user, base environment,
// forward policy), which the sandbox init or the command line provides. It
// does not trust SSH clients: only public keys listed in Config.AuthorizedKeys
// authenticate (there is no password, keyboard-interactive or "none" auth,
// and New refuses a config without keys or without a host key); client
// environment variables pass an accept-list; forwards pass Config.ForwardPolicy
// (default: local forwards only to loopback, remote-forward listeners only on
// loopback or unix sockets); agent forwarding is off unless enabled. SFTP,
// like OpenSSH's sftp-server, reaches every path the session's account can
// (there is no chroot); malformed SFTP packets end the subsystem. Errors
// sent to clients are fixed, safe strings; causes go to the Logger.
//
// Processes: commands run as `$SHELL -c CMD`, a shell request starts a login
// shell; SSH_CLIENT and SSH_CONNECTION are set as OpenSSH's sshd sets them,
// except after the session request NoRCRequest (airlock's own, sent by the
// host's bridge for its own commands) so that bash reads no rc file; without a PTY each process gets its own session (setsid) and pipes,
// and is not killed when the channel or connection closes, so background
// servers (VS Code's) survive; PTY sessions are hung up when they end. When
// the server runs as root and Config.User is another account, every process
// (and the SFTP server, re-executed from /proc/self/exe with argv[0]
// "airlock-sshd-sftp") switches to that account's uid, gid and groups.
//
// The identification string claims "OpenSSH_9.9_Airlock" so that npm ssh2
// allows its OpenSSH extension calls (see serverVersion).
package sshd
