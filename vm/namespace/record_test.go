//go:build linux

package namespace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// A sandbox created before the backend's record was renamed (its spec in
// vm/namespace/ID/sandbox.json, the name the bridge's own record has)
// still exists, starts and is removed; its next save moves the record to
// backend.json, and a second Create of the ID is refused either way.
func TestLegacyRecordStillRestores(t *testing.T) {
	b := newBackend(t)
	o := options()
	spec, keys := vmtest.NewSpec(t, b, "old", o)
	ctx := context.Background()
	if err := b.Create(ctx, spec); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Remove(context.Background(), "old") })
	dir := b.dir("old")
	if err := os.Rename(filepath.Join(dir, recordFile), filepath.Join(dir, legacyRecordFile)); err != nil {
		t.Fatal(err)
	}
	b2, err := NewBackend(b.root) // a bridge of this version, restarted on the old home
	if err != nil {
		t.Fatal(err)
	}
	if st, err := b2.Status(ctx, "old"); err != nil || st.State != vm.StateCreated {
		t.Fatalf("status of a legacy record: %+v %v", st, err)
	}
	if err := b2.Create(ctx, spec); !errors.Is(err, vm.ErrExists) {
		t.Fatalf("create over a legacy record: %v", err)
	}
	if err := b2.Start(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	if _, _, code := vmtest.Exec(t, vmtest.Connect(t, b2, "old", keys), "true"); code != 0 {
		t.Fatalf("exec in the restored sandbox: %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, legacyRecordFile)); !os.IsNotExist(err) {
		t.Errorf("legacy record still there after a start saved the record: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, recordFile)); err != nil {
		t.Errorf("record not moved to %s: %v", recordFile, err)
	}
}
