//go:build linux

package namespace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/internal/cgroups"
	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/guestspec"
	"github.com/airlock-sandbox/airlock/internal/wsgate"
	"github.com/airlock-sandbox/airlock/vm"
)

var _ vm.Backend = (*Backend)(nil)

// Backend runs sandboxes in Linux namespaces. All its state lives under
// root, one directory per sandbox, so a fresh Backend on the same root (a
// restarted bridge) finds running sandboxes again.
type Backend struct {
	root string
	ids  idMap

	mu        sync.Mutex             // guards locks, userns, spareBusy, held
	locks     map[string]*sync.Mutex // one per sandbox ID, serialises lifecycle calls in this process
	userns    map[[4]int]int         // idmap user namespaces by (uid, gid, agent uid, agent gid), see idmapUserns
	spareBusy bool                   // a spare disk image is being made (spare.go)
	spareWG   sync.WaitGroup         // the goroutine making it
	held      map[string]func()      // a create's disk mount, by sandbox ID, for its first start (holdDisk)
	statuses  statusCache            // what each record file said (statuscache.go)
}

// New returns a namespace backend whose sandboxes live under root (the
// vm.Factory cmd/airlock registers as "namespace").
func New(root string) (vm.Backend, error) { return NewBackend(root) }

// NewBackend is New with the concrete type.
func NewBackend(root string) (*Backend, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("namespace backend: root %q is not absolute", root)
	}
	return &Backend{root: filepath.Clean(root), ids: hostIDMap(), locks: map[string]*sync.Mutex{}}, nil
}

// Name implements vm.Backend.
func (b *Backend) Name() string { return "namespace" }

// Capabilities implements vm.Backend: the agent's account is the only one
// (started as a normal user there is no other to be), and the host
// kernel is shared, so no Docker engine of its own.
func (b *Backend) Capabilities() vm.Capabilities {
	return vm.Capabilities{DirectMode: true, ReadWriteMounts: true}
}

var (
	availOnce sync.Once
	availErr  error
)

// Available implements vm.Backend: it starts /bin/true in the namespaces a
// sandbox needs, with the id mapping it would get.
func (b *Backend) Available(ctx context.Context) error {
	availOnce.Do(func() {
		if err := guestspec.SeccompSupported(runtime.GOARCH); err != nil {
			availErr = fmt.Errorf("namespace backend: %v: %w", err, vm.ErrUnavailable)
			return
		}
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = sysProcAttr(b.ids)
		if err := cmd.Run(); err != nil {
			availErr = fmt.Errorf("namespace backend: cannot create user/mount/pid/net namespaces here (%v): %w", err, vm.ErrUnavailable)
		}
	})
	return availErr
}

func (b *Backend) dir(id string) string { return filepath.Join(b.root, id) }

// lock serialises lifecycle operations on one sandbox within this process.
// Across processes the bridge is the only caller.
func (b *Backend) lock(id string) func() {
	b.mu.Lock()
	m := b.locks[id]
	if m == nil {
		m = &sync.Mutex{}
		b.locks[id] = m
	}
	b.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// record is backend.json: the spec the sandbox was created with. Its
// presence is what makes the sandbox exist. It is this backend's own
// file, not the bridge's record of the sandbox
// ($AIRLOCK_HOME/sandboxes/NAME/sandbox.json, which is the truth).
type record struct {
	Spec    vm.Spec `json:"spec"`
	Started bool    `json:"started"`
	Note    string  `json:"note,omitempty"`    // from the last start: limits not applied, ...
	IDBase  int     `json:"id_base,omitempty"` // host id of guest root (root-run backend)
}

const recordFile = "backend.json"

// legacyRecordFile is the record's name before it was told apart from the
// bridge's sandbox.json: a sandbox created then is read from it, and its
// next save moves it to recordFile.
const legacyRecordFile = "sandbox.json"

// hasRecord reports whether a record exists in dir, under either name.
func hasRecord(dir string) bool {
	for _, f := range []string{recordFile, legacyRecordFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

func (b *Backend) load(id string) (*record, error) {
	if !config.ValidSandboxName(id) {
		return nil, fmt.Errorf("sandbox %q: %w", id, vm.ErrNotFound)
	}
	name := recordFile
	data, err := os.ReadFile(filepath.Join(b.dir(id), name))
	if errors.Is(err, os.ErrNotExist) {
		name = legacyRecordFile
		data, err = os.ReadFile(filepath.Join(b.dir(id), name))
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("sandbox %q: %w", id, vm.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox %q: %w", id, err)
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("sandbox %q: decode %s: %w", id, name, err)
	}
	return &r, nil
}

// save writes r as backend.json, compact: the spec's files (the guest's CA
// bundle, ~300 KB) took json.MarshalIndent 3.2 ms, json.Marshal 0.6, and
// Create and Start each save on the way to a sandbox's SSH.
func (b *Backend) save(id string, r *record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	path := filepath.Join(b.dir(id), recordFile)
	if err := fsx.WriteFileAtomic(path, data, 0o600); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil {
		b.rememberStatus(path, fi, r)
	}
	if err := os.Remove(filepath.Join(b.dir(id), legacyRecordFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// Status implements vm.Backend.
func (b *Backend) Status(ctx context.Context, id string) (vm.Status, error) {
	started, note, err := b.statusOf(id)
	if err != nil {
		return vm.Status{}, err
	}
	st := vm.Status{State: vm.StateCreated, Note: note}
	if started {
		st.State = vm.StateStopped
	}
	if p, ok := readPidFile(b.dir(id)); ok && p.alive() {
		st.State = vm.StateRunning
		st.PID = p.PID
		st.Kernel = hostKernel() // the guest shares the host's kernel
	}
	return st, nil
}

// hostKernel is the host kernel's release (uname -r).
func hostKernel() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

// Dial implements vm.Backend: it connects to the sandbox sshd's unix socket
// in the state directory.
func (b *Backend) Dial(ctx context.Context, id string) (net.Conn, error) {
	st, err := b.Status(ctx, id)
	if err != nil {
		return nil, err
	}
	if st.State != vm.StateRunning {
		return nil, fmt.Errorf("dial sandbox %s: %w", id, vm.ErrNotRunning)
	}
	c, err := dialUnix(ctx, filepath.Join(b.dir(id), "ssh.sock"))
	if err != nil {
		return nil, fmt.Errorf("dial sandbox %s: %w", id, err)
	}
	return c, nil
}

// dialUnix connects to a unix socket, going through /proc/self/fd when the
// path is too long for sockaddr_un.
func dialUnix(ctx context.Context, p string) (net.Conn, error) {
	var d net.Dialer
	if len(p) < 100 {
		return d.DialContext(ctx, "unix", p)
	}
	dir, err := os.OpenFile(filepath.Dir(p), unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	return d.DialContext(ctx, "unix", fmt.Sprintf("/proc/self/fd/%d/%s", dir.Fd(), filepath.Base(p)))
}

// Stop implements vm.Backend: killing the init ends the PID namespace and
// every process in it. State on disk stays.
func (b *Backend) Stop(ctx context.Context, id string) error {
	defer b.lock(id)()
	if _, _, err := b.statusOf(id); err != nil {
		return err
	}
	return b.stop(ctx, id)
}

func (b *Backend) stop(ctx context.Context, id string) error {
	dir := b.dir(id)
	if p, ok := readPidFile(dir); ok {
		if err := p.kill(ctx); err != nil {
			return fmt.Errorf("stop sandbox %s: %w", id, err)
		}
	}
	if err := wsgate.Stop(ctx, dir); err != nil {
		return fmt.Errorf("stop sandbox %s: %w", id, err)
	}
	os.Remove(filepath.Join(dir, pidFile))
	os.Remove(filepath.Join(dir, "ssh.sock"))
	cgroups.RemoveSaved(filepath.Join(dir, cgroups.File))
	return nil
}

// Remove implements vm.Backend.
func (b *Backend) Remove(ctx context.Context, id string) error {
	b.spareWG.Wait()
	defer b.lock(id)()
	r, err := b.load(id)
	if err != nil {
		return err
	}
	if err := b.stop(ctx, id); err != nil {
		return err
	}
	if !b.ids.single && r.IDBase != 0 {
		b.releaseUserns(r.IDBase + agentUID)
	}
	if unmount := b.takeDisk(id); unmount != nil {
		unmount() // created, never started
	}
	unix.Unmount(filepath.Join(b.dir(id), dataMount), unix.MNT_DETACH) // left by a crash mid-create
	b.forgetStatus(id)
	if err := removeAll(b.dir(id)); err != nil {
		return fmt.Errorf("remove sandbox %s: %w", id, err)
	}
	return nil
}

// removeAll is os.RemoveAll that also copes with directories the agent
// made unreadable (chmod 000): without root's override, as an
// unprivileged host user, they must be opened up first. Symlinks are
// never followed.
func removeAll(dir string) (err error) {
	for i := 0; i < 8; i++ {
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		// Each pass opens up the directories it can reach; WalkDir cannot
		// descend into one it could not read, so nesting takes passes.
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, _ error) error {
			if d != nil && d.IsDir() {
				os.Chmod(p, 0o700)
			}
			return nil
		})
	}
	return err
}
