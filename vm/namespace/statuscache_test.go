//go:build linux

package namespace

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/vm"
)

// TestStatusFollowsRecordFile: Status reads a record once per version of
// its file. What save wrote is known without reading; a record replaced by
// someone else (another backend on the same root) is read again; a removed
// one is gone; a name that is no sandbox name is not found.
func TestStatusFollowsRecordFile(t *testing.T) {
	b, err := NewBackend(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := os.MkdirAll(b.dir("cached"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := b.save("cached", &record{Note: "first"}); err != nil {
		t.Fatal(err)
	}
	if st, err := b.Status(ctx, "cached"); err != nil || st.State != vm.StateCreated || st.Note != "first" {
		t.Fatalf("after save: %+v %v", st, err)
	}
	data, _ := json.Marshal(&record{Started: true, Note: "second, written elsewhere"})
	if err := fsx.WriteFileAtomic(filepath.Join(b.dir("cached"), recordFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := b.Status(ctx, "cached"); err != nil || st.State != vm.StateStopped || st.Note != "second, written elsewhere" {
		t.Fatalf("after another writer: %+v %v", st, err)
	}
	if st, err := b.Status(ctx, "cached"); err != nil || st.Note != "second, written elsewhere" {
		t.Fatalf("read again: %+v %v", st, err)
	}
	if err := b.Remove(ctx, "cached"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"cached", "../cached", ""} {
		if _, err := b.Status(ctx, id); !errors.Is(err, vm.ErrNotFound) {
			t.Errorf("Status(%q) after remove: %v, want ErrNotFound", id, err)
		}
	}
}

// TestStartTakesSavedRecord: Start gets the record last saved while its
// file is that version, once (then it reads the file), never the Copied
// hook (not in the file), and the file's own content once it changed.
func TestStartTakesSavedRecord(t *testing.T) {
	b, err := NewBackend(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(b.dir("held"), 0o700); err != nil {
		t.Fatal(err)
	}
	r := &record{Note: "saved"}
	r.Spec.Workspace.Copied = func(context.Context, vm.WorkspaceCopy) error { return nil }
	if err := b.save("held", r); err != nil {
		t.Fatal(err)
	}
	got, err := b.loadForStart("held")
	if err != nil || got.Note != "saved" || got.Spec.Workspace.Copied != nil {
		t.Fatalf("first take: %+v %v", got, err)
	}
	again, err := b.loadForStart("held")
	if err != nil || again == got || again.Note != "saved" {
		t.Fatalf("second take is not read from the file: %p %p %v", again, got, err)
	}
	data, _ := json.Marshal(&record{Note: "rewritten"})
	if err := fsx.WriteFileAtomic(filepath.Join(b.dir("held"), recordFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	b.Status(context.Background(), "held") // remembers the new version
	if got, err := b.loadForStart("held"); err != nil || got.Note != "rewritten" {
		t.Fatalf("after another writer: %+v %v", got, err)
	}
}
