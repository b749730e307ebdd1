//go:build linux

package namespace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
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
	spare := spareName(b.root, config.DefaultDisk)
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

// TestCreateMountForFirstStart: the disk mount create made is the first
// start's (no second mount), gone once the start has passed its trees to
// the init; a sandbox removed without a start leaves no mount either.
func TestCreateMountForFirstStart(t *testing.T) {
	b := newBackend(t)
	if b.ids.single {
		t.Skip("disk images need host root")
	}
	ctx := context.Background()
	for _, start := range []bool{true, false} {
		id := "held-start"
		if !start {
			id = "held-rm"
		}
		spec, _ := vmtest.NewSpec(t, b, id, options())
		if err := b.Create(ctx, spec); err != nil {
			t.Fatal(err)
		}
		dir := b.dir(id)
		data := filepath.Join(dir, dataMount)
		if !mountedOn(data, dir) {
			t.Fatalf("%s: create left no mount for the first start", id)
		}
		if start {
			if err := b.Start(ctx, id); err != nil {
				t.Fatal(err)
			}
			if mountedOn(data, dir) {
				t.Errorf("%s: the host mount of the disk outlived the start", id)
			}
		}
		if err := b.Remove(ctx, id); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s: state dir left after remove: %v", id, err)
		}
		if b.takeDisk(id) != nil {
			t.Errorf("%s: a held mount survived remove", id)
		}
	}
}
