package wsgate

// Outside tests of the handle-less gate (see outside_nohandles_test.go)
// where the host changes what lies at a path the sandbox holds open: the
// gate opens by path per request (nohandles.go withFile, node.go
// openFile), so whatever the host put there is opened before the
// identity check.

import (
	"bytes"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestOutsideNoHandlesHostSymlinkSwap: while the sandbox reads a file
// (uncached, O_DIRECT), the user keeps swapping its directory for a
// symlink to a directory outside the folder holding a file of the same
// name: the gate opens by path per request, but never through the link,
// and never serves the outside file's bytes.
func TestOutsideNoHandlesHostSymlinkSwap(t *testing.T) {
	outside := t.TempDir()
	write(t, outside+"/f", "OUTSIDE-SECRET")
	folder, m := mountGate(t, Policy{}, func(d string) { write(t, d+"/d/f", "inside") })
	f, err := os.OpenFile(m+"/d/f", os.O_RDONLY|syscall.O_DIRECT, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stop sync.WaitGroup
	done := make(chan struct{})
	stop.Add(1)
	go func() {
		defer stop.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			os.Rename(folder+"/d", folder+"/d.real")
			os.Symlink(outside, folder+"/d")
			time.Sleep(50 * time.Microsecond)
			os.Remove(folder + "/d")
			os.Rename(folder+"/d.real", folder+"/d")
		}
	}()
	leaked := 0
	buf := make([]byte, 64)
	for i := 0; i < 3000; i++ {
		if n, _ := f.ReadAt(buf, 0); bytes.Contains(buf[:max(n, 0)], []byte("OUTSIDE")) {
			leaked++
		}
	}
	close(done)
	stop.Wait()
	if leaked > 0 {
		t.Errorf("%d of 3000 reads returned the outside file's bytes", leaked)
	}
}

// TestOutsideNoHandlesHostFIFO: the host replaces a file the sandbox
// holds open with a named pipe (a tool's mkfifo; or a FIFO of the host's
// the sandbox renames there). The sandbox's next READ or WRITE must not
// leave the gate blocked opening the pipe (one goroutine and one thread
// each, forever), nor connect to a host reader or writer of it.
func TestOutsideNoHandlesHostFIFO(t *testing.T) {
	folder, m := mountGate(t, Policy{}, func(d string) { write(t, d+"/x", "regular") })
	f, err := os.OpenFile(m+"/x", os.O_RDWR|syscall.O_DIRECT, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.Remove(folder + "/x")
	if err := unix.Mkfifo(folder+"/x", 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() { _, err := f.ReadAt(make([]byte, 8), 0); done <- err }()
	go func() { _, err := f.WriteAt([]byte("w"), 0); done <- err }()
	for i := 0; i < 2; i++ {
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("I/O on the replaced file succeeded")
			}
		case <-time.After(3 * time.Second):
			t.Errorf("the sandbox's read/write of a file the host replaced with a FIFO hangs (the gate is blocked opening the FIFO)")
			// Unblock the gate: be the FIFO's other ends.
			if r, err := unix.Open(folder+"/x", unix.O_RDONLY|unix.O_NONBLOCK, 0); err == nil {
				defer unix.Close(r)
			}
			if w, err := unix.Open(folder+"/x", unix.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
				defer unix.Close(w)
			}
			<-done
		}
	}
}
