//go:build linux

package namespace

import (
	"context"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/wsgate"
)

// startGate starts the sandbox's workspace gate (package wsgate): in direct
// mode the sandbox reaches the user's folder only through it. It returns
// the mount point.
func (l *launch) startGate(ctx context.Context) (string, error) {
	w := l.spec.Workspace
	return wsgate.Start(ctx, l.dir, w.HostPath, gatePolicy(w.Hide, w.Protect))
}

// gatePolicy is the gate's policy for a workspace's hide and protect
// lists (all of .git is read-only in the gate anyway).
func gatePolicy(hide, protect []string) wsgate.Policy {
	p := wsgate.Policy{Hide: hide}
	for _, g := range protect {
		if g != ".git" && !strings.HasPrefix(g, ".git/") {
			p.Protect = append(p.Protect, g)
		}
	}
	return p
}
