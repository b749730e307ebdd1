package agent

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"

	gossh "golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
	"github.com/airlock-sandbox/airlock/sshd"
)

// vmsshd is the embedded sshd of a microVM, started (and restarted) by
// vminit from the switched root. It reads the spec vminit left at
// guestspec.VMInitRunPath (root-only) and listens on :SSHPort, where qemu's user
// network forwards the host's 127.0.0.1 port.
func init() {
	Register(&Subcommand{Name: "vmsshd", Summary: "microVM sshd (started by vminit)", Run: runVMSSHD})
}

func runVMSSHD(args []string) int {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := vmServeSSH(logger); err != nil {
		fmt.Fprintf(os.Stderr, "airlock-agent vmsshd: %v\n", err)
		return 1
	}
	return 0
}

func vmServeSSH(logger *slog.Logger) error {
	b, err := os.ReadFile(guestspec.VMInitRunPath)
	if err != nil {
		return err
	}
	var spec guestspec.VMInit
	if err := json.Unmarshal(b, &spec); err != nil {
		return err
	}
	signer, err := gossh.ParsePrivateKey(spec.HostKeyPEM)
	if err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	var keys []gossh.PublicKey
	rest := spec.AuthorizedKeys
	for len(strings.TrimSpace(string(rest))) > 0 {
		k, _, _, r, err := gossh.ParseAuthorizedKey(rest)
		if err != nil {
			return fmt.Errorf("authorized keys: %w", err)
		}
		keys = append(keys, k)
		rest = r
	}
	env := spec.Env
	if !hasEnv(env, "PATH") {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	srv, err := sshd.New(sshd.Config{HostKey: signer, AuthorizedKeys: keys, User: spec.User, Env: env, Logger: logger})
	if err != nil {
		return err
	}
	port := spec.SSHPort
	if port == 0 {
		port = 22
	}
	l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		return err
	}
	vmPhase("sshd")
	return srv.Serve(l)
}

func hasEnv(env []string, key string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			return true
		}
	}
	return false
}
