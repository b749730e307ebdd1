//go:build linux

package agent

import (
	"fmt"
	"log/slog"
	"os"

	gossh "golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
	"github.com/airlock-sandbox/airlock/sshd"
)

// newSSHServer builds the embedded sshd from an init spec.
func newSSHServer(s *guestspec.InitSpec) (*sshd.Server, error) {
	hk, err := gossh.ParsePrivateKey(s.HostKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("parse host key: %w", err)
	}
	keys, err := sshd.ParseAuthorizedKeys(s.AuthorizedKeys)
	if err != nil {
		return nil, err
	}
	return sshd.New(sshd.Config{
		HostKey:        hk,
		AuthorizedKeys: keys,
		User:           s.User,
		Shell:          s.Shell,
		Env:            s.Env,
		Logger:         slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
}
