package steptime

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestStepsInOrderWithPrefixes(t *testing.T) {
	tm := New()
	ctx := With(context.Background(), tm)
	err := From(ctx).Run("create", func() error {
		sub := From(ctx).Sub("create")
		sub.Run("disk", func() error { time.Sleep(2 * time.Millisecond); return nil })
		end := sub.Begin("etc")
		end()
		end() // ignored
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := errors.New("boom")
	if err := tm.Run("start", func() error { return want }); err != want {
		t.Fatalf("Run returned %v, want the step's own error", err)
	}
	var names []string
	for _, s := range tm.Steps() {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "create create.disk create.etc start" {
		t.Fatalf("steps %q", got)
	}
	if tm.Get("create.disk") < 2*time.Millisecond || tm.Get("create") < tm.Get("create.disk") {
		t.Fatalf("durations wrong: %v", tm)
	}
	if got := len(tm.Sub("create").Steps()); got != 2 {
		t.Fatalf("the create view has %d steps, want 2", got)
	}
}

func TestNilTimer(t *testing.T) {
	var tm *Timer // From of a context without one
	if From(context.Background()) != nil {
		t.Fatal("From of a bare context is not nil")
	}
	ran := false
	tm.Run("x", func() error { ran = true; return nil })
	tm.Begin("y")()
	if !ran || tm.Steps() != nil || tm.String() != "" {
		t.Fatal("nil Timer misbehaves")
	}
	sub := tm.Sub("start")
	sub.Run("exec", func() error { return nil })
	if got := sub.String(); !strings.HasPrefix(got, "exec=") {
		t.Fatalf("fresh Timer from nil Sub: %q", got)
	}
}

func TestDebug(t *testing.T) {
	var buf bytes.Buffer
	old := debugOut
	debugOut = &buf
	defer func() { debugOut = old }()
	tm := New()
	tm.Run("a", func() error { return nil })
	t.Setenv("AIRLOCK_VM_DEBUG", "")
	tm.Debug("up")
	if buf.Len() != 0 {
		t.Fatalf("printed without AIRLOCK_VM_DEBUG: %q", buf.String())
	}
	t.Setenv("AIRLOCK_VM_DEBUG", "1")
	tm.Debug("up")
	if !strings.HasPrefix(buf.String(), "up: a=") {
		t.Fatalf("debug line %q", buf.String())
	}
}
