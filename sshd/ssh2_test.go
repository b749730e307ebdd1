package sshd

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// TestSSH2OpenRemoteSSH replays open-remote-ssh's steps with the npm ssh2
// client (testdata/node; CI runs `npm ci` there).
func TestSSH2OpenRemoteSSH(t *testing.T) {
	skipShort(t)
	node := needTool(t, "node")
	if _, err := os.Stat("testdata/node/node_modules/ssh2"); err != nil {
		testenv.Missing(t, "npm ssh2 not installed: run `npm ci` in sshd/testdata/node")
	}
	ts := startServer(t, nil)
	work := t.TempDir()
	defer func() {
		if b, err := os.ReadFile(filepath.Join(work, "pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}()
	cmd := exec.Command(node, "replay.js")
	cmd.Dir = "testdata/node"
	cmd.Env = append(os.Environ(),
		"SSH_PORT="+strconv.Itoa(ts.Port),
		"SSH_KEY="+ts.KeyFile,
		"SSH_HOSTKEY="+base64.StdEncoding.EncodeToString(ts.HostPublic.Marshal()),
		"WORKDIR="+work)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := runTimeout(cmd, 120*time.Second)
	if err != nil || !strings.Contains(string(out), `"ok":true`) {
		t.Fatalf("replay.js: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
	}
	t.Logf("ssh2: %s", out)
}
