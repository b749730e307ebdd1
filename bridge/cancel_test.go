package bridge_test

import (
	"context"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

// A client that goes away cancels its requests: the command a sandbox.exec
// started inside the guest is killed, not left running.
func TestExecCancelledWhenClientDisconnects(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a sandbox")
	}
	h := bridgetest.New(t)
	dir := t.TempDir()
	name := h.Up(t, `sandbox "cancel" {
  backend = "namespace"
  workspace {
    mode = "mountless"
  }
}
`, dir)

	c := h.Client(t)
	go c.Call(context.Background(), protocol.MethodExec, protocol.ExecParams{
		Name: name, Argv: []string{"sh", "-c", "echo $$ > /tmp/pid; exec sleep 600"},
	}, nil)
	waitFor(t, "the command to start", func() bool {
		_, _, code := h.Exec(t, name, "test", "-s", "/tmp/pid")
		return code == 0
	})
	if _, _, code := h.Exec(t, name, "sh", "-c", `kill -0 "$(cat /tmp/pid)"`); code != 0 {
		t.Fatal("the command is not running before the disconnect")
	}
	c.Close()
	waitFor(t, "the command to be killed after the client left", func() bool {
		_, _, code := h.Exec(t, name, "sh", "-c", `kill -0 "$(cat /tmp/pid)"`)
		return code != 0
	})
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
