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
