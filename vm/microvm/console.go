package microvm

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/airlock-sandbox/airlock/internal/procid"
)

// The guest's serial console is a file on the host (console.log in the
// sandbox's state: the boot phases and the last lines of a failed boot come
// from it). Root in the guest can write to the console without end, so the
// file is capped: qemu appends to it, and while the sandbox runs the backend
// checks it every consolePoll and empties it past consoleCap, leaving a note.
// The cap holds while a bridge (any process with this backend) runs; each
// one picks up the running sandboxes it looks at.
var (
	consoleCap  int64 = 8 << 20 // a test lowers it
	consolePoll       = 2 * time.Second
)

// watchConsole starts the cap for the qemu r describes, once per qemu.
func (b *Backend) watchConsole(dir string, r *runInfo) {
	key := fmt.Sprintf("%s:%d:%d", dir, r.PID, r.Start)
	if _, loaded := b.consoles.LoadOrStore(key, struct{}{}); loaded {
		return
	}
	go func() {
		defer b.consoles.Delete(key)
		path := filepath.Join(dir, "console.log")
		for procid.Start(r.PID) == r.Start {
			capConsole(path, consoleCap)
			time.Sleep(consolePoll)
		}
	}()
}

// capConsole empties the log at path once it is larger than max and says
// so in it; it reports whether it did.
func capConsole(path string, max int64) bool {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() <= max {
		return false
	}
	if os.Truncate(path, 0) != nil {
		return false
	}
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err == nil {
		fmt.Fprintf(f, "airlock: console log emptied at %d bytes (cap %d) %s\n", fi.Size(), max, time.Now().UTC().Format(time.RFC3339))
		f.Close()
	}
	return true
}
