package vmtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/vm"
)

// homeMount: a read-only host directory mounted below the agent's home
// (how the bridge shares the skills directory at ~/.claude/skills) is
// readable, not writable, leaves the host file alone, and the directories
// created above it stay the agent's.
func homeMount(t *testing.T, b vm.Backend, o Options) {
	ctx := context.Background()
	spec, keys := NewSpec(t, b, "homemount", o)
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "SKILL.md"), []byte("host text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec.Mounts = append(spec.Mounts, vm.Mount{Name: "skills", Source: src, Target: "/home/agent/.claude/skills", ReadOnly: true})
	if err := b.Create(ctx, spec); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { b.Remove(context.Background(), spec.ID) })
	sctx, cancel := ctxT(o)
	defer cancel()
	if err := b.Start(sctx, spec.ID); err != nil {
		t.Fatalf("start: %v", err)
	}
	cl := Connect(t, b, spec.ID, keys)
	defer cl.Close()
	out := MustExec(t, cl, `cat ~/.claude/skills/SKILL.md
echo changed > ~/.claude/skills/SKILL.md 2>/dev/null && echo WROTE
touch ~/.claude/skills/new 2>/dev/null && echo CREATED
touch ~/.claude/settings.json && echo parent-writable
stat -c %u ~/.claude`)
	if !strings.HasPrefix(out, "host text\n") || strings.Contains(out, "WROTE") || strings.Contains(out, "CREATED") ||
		!strings.Contains(out, "parent-writable\n1000\n") {
		t.Errorf("inside: %q", out)
	}
	if b, _ := os.ReadFile(filepath.Join(src, "SKILL.md")); string(b) != "host text\n" {
		t.Errorf("host file is now %q", b)
	}
	if _, err := os.Stat(filepath.Join(src, "new")); err == nil {
		t.Error("a file appeared in the host directory")
	}
}
