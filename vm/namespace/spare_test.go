//go:build linux

package namespace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// TestSpareDisk: a create leaves a spare image made ahead; the next create
// takes that very file (a rename) as its disk, and the sandbox starts on it.
func TestSpareDisk(t *testing.T) {
	b := newBackend(t)
	if b.ids.single {
		t.Skip("disk images need host root")
	}
	ctx := context.Background()
	spare := spareName(b.root, DefaultDiskBytes)
	var spareIno os.FileInfo
	for _, id := range []string{"spare-a", "spare-b"} {
		spec, _ := vmtest.NewSpec(t, b, id, options())
		if err := b.Create(ctx, spec); err != nil {
			t.Fatal(err)
		}
		if spareIno != nil {
			disk, err := os.Stat(filepath.Join(b.dir(id), diskFile))
			if err != nil || !os.SameFile(disk, spareIno) {
				t.Errorf("%s: its disk is not the spare made after the first create (%v)", id, err)
			}
		}
		b.spareWG.Wait()
		fi, err := os.Stat(spare)
		if err != nil {
			t.Fatalf("no spare after creating %s: %v", id, err)
		}
		spareIno = fi
		if err := b.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		if err := b.Remove(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
}
