package vm

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckComplete(t *testing.T) {
	full := Spec{ID: "a", CPUs: 1, MemoryBytes: 1 << 30, DiskBytes: 1 << 30, Pids: 64, Image: "img", User: "agent",
		Workspace: Workspace{Mode: ModeMountless, Target: "/workspace"}}
	if err := full.CheckComplete(); err != nil {
		t.Fatalf("complete spec: %v", err)
	}
	var empty Spec
	err := empty.CheckComplete()
	if !errors.Is(err, ErrInvalidSpec) {
		t.Fatalf("empty spec: %v, want ErrInvalidSpec", err)
	}
	for _, f := range []string{"ID", "CPUs", "MemoryBytes", "DiskBytes", "Pids", "Image", "User", "Workspace.Mode", "Workspace.Target"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not name %s", err, f)
		}
	}
}
