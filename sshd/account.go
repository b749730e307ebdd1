package sshd

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// account is the resolved Config.User.
type account struct {
	name  string
	uid   uint32
	gid   uint32
	home  string
	shell string
	// cred is non-nil when session processes must switch to the account
	// (the server runs as root and the account is someone else).
	cred *syscall.Credential
}

func lookupAccount(name, shell string) (*account, error) {
	var u *user.User
	var err error
	if name == "" {
		u, err = user.Current()
	} else {
		u, err = user.Lookup(name)
	}
	if err != nil {
		return nil, fmt.Errorf("look up user %q: %w", name, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("user %q: %w", u.Username, err)
	}
	a := &account{name: u.Username, uid: uint32(uid), gid: uint32(gid), home: u.HomeDir, shell: shell}
	if a.home == "" {
		a.home = "/"
	}
	if a.shell == "" {
		a.shell = passwdShell(u.Username)
	}
	if a.shell == "" {
		a.shell = "/bin/sh"
	}
	self := uint32(os.Getuid())
	switch {
	case a.uid == self:
	case self == 0:
		a.cred = &syscall.Credential{Uid: a.uid, Gid: a.gid}
		if ids, err := u.GroupIds(); err == nil {
			for _, g := range ids {
				if n, err := strconv.ParseUint(g, 10, 32); err == nil && uint32(n) != a.gid {
					a.cred.Groups = append(a.cred.Groups, uint32(n))
				}
			}
		}
		if a.cred.Groups == nil {
			a.cred.Groups = []uint32{} // drop root's supplementary groups
		}
	default:
		return nil, fmt.Errorf("user %q: running as uid %d, cannot switch to uid %d", a.name, self, a.uid)
	}
	return a, nil
}

// passwdShell reads the login shell from /etc/passwd (os/user does not
// expose it).
func passwdShell(name string) string {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), ":")
		if len(fs) == 7 && fs[0] == name {
			return fs[6]
		}
	}
	return ""
}

const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// baseEnv is the environment every session starts from: the login
// variables, then Config.Env (which may override PATH and SHELL).
func (s *Server) baseEnv() []string {
	a := s.acct
	env := []string{
		"HOME=" + a.home,
		"USER=" + a.name,
		"LOGNAME=" + a.name,
		"SHELL=" + a.shell,
		"PATH=" + defaultPath,
	}
	return mergeEnv(env, s.cfg.Env)
}

// mergeEnv returns base with each KEY=VALUE of extra set (replacing).
func mergeEnv(base, extra []string) []string {
	out := append([]string(nil), base...)
	for _, kv := range extra {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		replaced := false
		for i, o := range out {
			if strings.HasPrefix(o, k+"=") {
				out[i] = kv
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, kv)
		}
	}
	return out
}

// clientEnvOK is the accept-list for the client's `env` requests (what
// OpenSSH's default AcceptEnv plus VS Code need). Anything else, notably
// PATH, LD_* and the proxy/credential variables from Config.Env, is refused.
func clientEnvOK(name string) bool {
	switch name {
	case "LANG", "LANGUAGE", "TERM", "COLORTERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "TZ", "NO_COLOR":
		return true
	}
	for _, p := range []string{"LC_", "VSCODE_", "REMOTE_CONTAINERS_"} {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			return true
		}
	}
	return false
}

// loginArgv0 is a shell's argv[0] for a login shell: "-bash".
func loginArgv0(shell string) string { return "-" + filepath.Base(shell) }
