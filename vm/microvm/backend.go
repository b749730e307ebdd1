package microvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/guestspec"
	"github.com/airlock-sandbox/airlock/internal/procid"
	"github.com/airlock-sandbox/airlock/internal/steptime"
	"github.com/airlock-sandbox/airlock/internal/wsgate"
	"github.com/airlock-sandbox/airlock/vm"
)

// Open is the vm.Factory cmd/airlock registers as "microvm": a backend
// rooted at root, where the bridge puts it ($AIRLOCK_HOME/vm/microvm).
func Open(root string) (vm.Backend, error) { return New(root, homeOf(root)), nil }

var _ vm.Backend = (*Backend)(nil)

// The bridge sends progress to its clients through this.
var _ interface{ SetProgress(io.Writer) } = (*Backend)(nil)

const (
	// BootTimeout bounds Start: a TCG boot takes 2-5 s, more with several at once.
	BootTimeout = 120 * time.Second
)

// Backend runs each sandbox as a qemu microvm. All state of sandbox ID lives
// in root/ID; the kernel cache and images live under home.
type Backend struct {
	root, home string
	// Progress receives one-line progress messages (kernel fetch, image
	// build on first use). Nil discards them.
	Progress io.Writer

	mu    sync.Mutex             // guards locks
	locks map[string]*sync.Mutex // per sandbox: serialises its lifecycle calls (boots are slow; others proceed)

	consoles sync.Map // run.json path -> struct{}: console caps watching (capConsole)
}

// lock takes the sandbox's lifecycle lock and returns its unlock.
func (b *Backend) lock(id string) func() {
	b.mu.Lock()
	if b.locks == nil {
		b.locks = map[string]*sync.Mutex{}
	}
	l := b.locks[id]
	if l == nil {
		l = new(sync.Mutex)
		b.locks[id] = l
	}
	b.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// New returns a backend keeping sandboxes under root and caches
// (home/cache, home/images) under home ($AIRLOCK_HOME).
func New(root, home string) *Backend { return &Backend{root: root, home: home} }

// homeOf finds $AIRLOCK_HOME from a backend root: the bridge roots
// backends at $AIRLOCK_HOME/vm/NAME; otherwise the root's parent.
func homeOf(root string) string {
	parent := filepath.Dir(root)
	if filepath.Base(parent) == "vm" {
		return filepath.Dir(parent)
	}
	return parent
}

// Accelerated reports whether guests run under KVM here (the bridge's
// backend = "auto" picks microvm only then).
func (b *Backend) Accelerated(ctx context.Context) error {
	if !KVMUsable(ctx, b.home) {
		return errors.New("guests do not boot under KVM here (TCG only)")
	}
	return nil
}

// Name implements vm.Backend.
func (b *Backend) Name() string { return "microvm" }

// Capabilities implements vm.Backend. The image has one account, the
// agent's (finishRoot), so sessions as another user are refused.
func (b *Backend) Capabilities() vm.Capabilities {
	return vm.Capabilities{Docker: true, DirectMode: true, ReadWriteMounts: true}
}

// Available implements vm.Backend: qemu and its tools must be installed.
func (b *Backend) Available(ctx context.Context) error {
	for _, tool := range []string{QEMU, "qemu-img", "mkfs.ext4", "apt-get", "dpkg", "depmod", "modprobe", "xz"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s not found (apt-get install qemu-system-x86 qemu-utils e2fsprogs kmod xz-utils): %w", tool, vm.ErrUnavailable)
		}
	}
	return nil
}

// vmConfig is what Create leaves in the state dir for Start.
type vmConfig struct {
	ID          string   `json:"id"`
	CPUs        int      `json:"cpus"`
	MemoryMiB   int      `json:"memory_mib"`
	BaseImage   string   `json:"base_image"`
	AgentBinary string   `json:"agent_binary"`
	WorkDisk    bool     `json:"work_disk"`
	Shares      []share  `json:"shares"`
	Direct      string   `json:"direct,omitempty"` // host folder (direct mode)
	Hide        []string `json:"hide,omitempty"`
	// Gate is the workspace gate's policy (direct mode): the shares are
	// its mount point, not the folder. Configs from before the gate have
	// none and keep the guest-side hide masks.
	Gate *wsgate.Policy   `json:"gate,omitempty"`
	Init guestspec.VMInit `json:"init"`
}

// runInfo describes the running qemu; it survives a bridge restart.
type runInfo struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"` // /proc start time: guards against pid reuse
	Port  int    `json:"port"`
	Note  string `json:"note"`
	// Accel is "kvm" or "tcg": what this qemu runs on (vm.Status.Accelerator).
	Accel string `json:"accel,omitempty"`
	// Kernel is the release of the kernel this qemu boots (vm.Status.Kernel).
	Kernel string `json:"kernel,omitempty"`
	// Phases is the breakdown of the Start that launched this qemu.
	Phases Phases `json:"phases,omitempty"`
	// Args is the command line's fingerprint (a saved state records it).
	Args string `json:"args,omitempty"`
	// Resumed: this qemu continued from saved state instead of booting.
	Resumed bool `json:"resumed,omitempty"`
}

func (b *Backend) dir(id string) string { return filepath.Join(b.root, id) }

func (b *Backend) loadConfig(id string) (*vmConfig, error) {
	if !config.ValidSandboxName(id) {
		return nil, fmt.Errorf("sandbox %q: %w", id, vm.ErrNotFound)
	}
	data, err := os.ReadFile(filepath.Join(b.dir(id), "config.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("sandbox %s: %w", id, vm.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	var c vmConfig
	return &c, json.Unmarshal(data, &c)
}

// running returns the run info when the sandbox's qemu is alive.
func (b *Backend) running(id string) (*runInfo, bool) {
	data, err := os.ReadFile(filepath.Join(b.dir(id), "run.json"))
	if err != nil {
		return nil, false
	}
	var r runInfo
	if json.Unmarshal(data, &r) != nil {
		return nil, false
	}
	if r.Accel == "" { // a run.json from before the field: its note began with the accelerator
		r.Accel = "tcg"
		if strings.HasPrefix(r.Note, "KVM") {
			r.Accel = "kvm"
		}
	}
	alive := r.PID > 0 && procid.Start(r.PID) == r.Start
	if alive {
		b.watchConsole(b.dir(id), &r)
	}
	return &r, alive
}

// Create implements vm.Backend.
func (b *Backend) Create(ctx context.Context, spec vm.Spec) (err error) {
	if !config.ValidSandboxName(spec.ID) {
		return fmt.Errorf("sandbox id %q: %w", spec.ID, vm.ErrInvalidSpec)
	}
	if err := spec.CheckComplete(); err != nil {
		return err
	}
	defer b.lock(spec.ID)()
	if len(spec.HostKeyPEM) == 0 || len(spec.AuthorizedKeys) == 0 || spec.AgentBinary == "" {
		return fmt.Errorf("sandbox %s: host key, authorized keys and agent binary are required: %w", spec.ID, vm.ErrInvalidSpec)
	}
	if spec.User != "agent" {
		return fmt.Errorf("sandbox %s: user %q: the image has only the agent's account: %w", spec.ID, spec.User, vm.ErrInvalidSpec)
	}
	dir := b.dir(spec.ID)
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err == nil {
		return fmt.Errorf("sandbox %s: %w", spec.ID, vm.ErrExists)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			b.removeOwned(dir)
		}
	}()
	c := &vmConfig{ID: spec.ID, CPUs: spec.CPUs, MemoryMiB: int(spec.MemoryBytes >> 20), AgentBinary: spec.AgentBinary}
	if c.MemoryMiB < 256 {
		return fmt.Errorf("sandbox %s: memory below 256 MiB: %w", spec.ID, vm.ErrInvalidSpec)
	}
	tm := steptime.Of(ctx)
	defer tm.Debug("microvm: create " + spec.ID)
	if err := tm.Run("root disk", func() error { return b.createRootDisk(ctx, dir, spec, c) }); err != nil {
		return err
	}
	user := spec.User
	c.Init = guestspec.VMInit{
		Hostname: spec.ID, RootSerial: rootSerial,
		User: user, UID: 1000, GID: 1000, Home: "/home/" + user,
		HostKeyPEM: spec.HostKeyPEM, AuthorizedKeys: spec.AuthorizedKeys,
		Addr: "10.0.2.15/24", SSHPort: 22, Control: controlPort, Docker: spec.Docker,
		ResetHome: spec.RootDisk != "",
	}
	for k, v := range spec.Env {
		c.Init.Env = append(c.Init.Env, k+"="+v)
	}
	for _, f := range spec.Files {
		c.Init.Files = append(c.Init.Files, f)
	}
	if err := tm.Run("workspace", func() error { return b.prepareWorkspace(ctx, dir, spec.Workspace, c) }); err != nil {
		return err
	}
	for i, m := range spec.Mounts {
		if !filepath.IsAbs(m.Source) || !filepath.IsAbs(m.Target) {
			return fmt.Errorf("mount %s: paths must be absolute: %w", m.Name, vm.ErrInvalidSpec)
		}
		tag := "m" + strconv.Itoa(i)
		c.Shares = append(c.Shares, share{Tag: tag, Path: m.Source, ReadOnly: m.ReadOnly})
		c.Init.Mounts = append(c.Init.Mounts, guestspec.VMMount{Tag: tag, Target: m.Target, ReadOnly: m.ReadOnly})
	}
	data, _ := json.MarshalIndent(c, "", "  ")
	return fsx.WriteFileAtomic(filepath.Join(dir, "config.json"), data, 0o600)
}

// SetProgress sends first-use progress lines to w as well as to
// $AIRLOCK_HOME/logs/microvm.log (the bridge passes its clients).
func (b *Backend) SetProgress(w io.Writer) {
	b.Progress = io.MultiWriter(b.logFile(), w)
}

// progress is where first-use kernel fetches and image builds report:
// b.Progress, else $AIRLOCK_HOME/logs/microvm.log.
func (b *Backend) progress() io.Writer {
	if b.Progress != nil {
		return b.Progress
	}
	return b.logFile()
}

func (b *Backend) logFile() io.Writer {
	if err := os.MkdirAll(filepath.Join(b.home, "logs"), 0o700); err == nil {
		if f, err := os.OpenFile(filepath.Join(b.home, "logs", "microvm.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			return f // closed by its finalizer; progress is rare
		}
	}
	return io.Discard
}

// Start implements vm.Backend: it resumes the saved state Stop left when
// it is usable, and otherwise boots (saying why in Status.Note).
func (b *Backend) Start(ctx context.Context, id string) (err error) {
	defer b.lock(id)()
	c, err := b.loadConfig(id)
	if err != nil {
		return err
	}
	if _, ok := b.running(id); ok {
		return fmt.Errorf("sandbox %s: %w", id, vm.ErrRunning)
	}
	dir := b.dir(id)
	t00 := time.Now()
	tm := steptime.Of(ctx)
	ctx = steptime.With(ctx, tm) // boot adds its steps
	defer tm.Debug("microvm: start " + id)
	var k *Kernel
	if err := tm.Run("kernel", func() (err error) {
		k, err = EnsureKernel(ctx, filepath.Join(b.home, "cache"), b.progress())
		return err
	}); err != nil {
		return fmt.Errorf("start vm %s: %w", id, err)
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	if c.Gate != nil {
		if err := tm.Run("gate", func() error {
			_, err := wsgate.Start(ctx, dir, wsgate.Options{Folder: c.Direct, Policy: *c.Gate})
			return err
		}); err != nil {
			return fmt.Errorf("start vm %s: %w", id, err)
		}
		defer func() {
			if err != nil {
				wsgate.Stop(context.Background(), dir)
			}
		}()
	}
	endKVM := tm.Begin("kvm check")
	kvm := KVMUsable(ctx, b.home)
	endKVM()
	l := &launch{Dir: dir, Kernel: k.Vmlinux, Initrd: filepath.Join(dir, "initrd.img"), CPUs: c.CPUs, MemoryMiB: c.MemoryMiB,
		KVM: kvm, Port: port, RootDisk: filepath.Join(dir, "root.qcow2"), Shares: c.Shares}
	if c.WorkDisk {
		l.WorkDisk = filepath.Join(dir, "workspace.img")
	}
	if os.Geteuid() == 0 && len(c.Shares) == 0 {
		l.RunAs = "nobody" // nothing it needs after setup is root's
	}
	note, accel := "KVM", "kvm"
	if !kvm {
		note, accel = "TCG: no working KVM on this host (software emulation: boots take seconds, guest code runs 20-40x slower)", "tcg"
	}
	ri := runInfo{Port: port, Note: note, Accel: accel, Kernel: k.Version, Args: l.fingerprint()}
	if meta, why := usableState(dir, l); why == "" {
		prep := time.Since(t00)
		err := tm.Run("resume", func() error { return b.resume(ctx, l, meta, &ri) })
		if err == nil {
			dropState(dir) // the guest runs on: this state is history
			ri.Resumed, ri.Note = true, note+"; resumed from saved state"
			t0 := time.Now()
			if err = tm.Run("ready", func() error { return b.waitReady(ctx, id, &ri) }); err == nil {
				ri.Phases = append(Phases{{"host prep", prep}}, append(ri.Phases, Phase{"ssh banner", time.Since(t0)})...)
				return b.writeRun(dir, &ri)
			}
		}
		debugf("resume failed: %v", err)
		why = err.Error()
		dropState(dir)
		ri = runInfo{Port: port, Args: ri.Args, Accel: accel, Kernel: k.Version, Note: note + "; saved state unusable (" + why + "): booted afresh"}
	} else if why != "none" {
		dropState(dir)
		ri.Note = note + "; saved state unusable (" + why + "): booted afresh"
	}
	return b.boot(ctx, id, c, k, l, &ri, t00)
}

// boot writes the initramfs and cold-boots the guest.
func (b *Backend) boot(ctx context.Context, id string, c *vmConfig, k *Kernel, l *launch, ri *runInfo, t00 time.Time) (err error) {
	init := c.Init
	init.Modules = bootModules(k, len(c.Shares) > 0, init.Docker)
	// A template's disk has its home emptied on the sandbox's first boot
	// only; the host keeps the record ("booted"), never the guest's disk.
	if _, err := os.Stat(filepath.Join(l.Dir, "booted")); err == nil {
		init.ResetHome = false
	}
	if c.Direct != "" && c.Gate == nil {
		if init.Workspace.Hide, err = hiddenPaths(c.Direct, c.Hide); err != nil {
			return fmt.Errorf("start vm %s: hide: %w", id, err)
		}
	}
	tm := steptime.From(ctx)
	if err := tm.Run("initramfs", func() error { return writeInitramfs(l.Initrd, c.AgentBinary, k, &init) }); err != nil {
		return fmt.Errorf("start vm %s: initramfs: %w", id, err)
	}
	t0 := time.Now()
	prep := t0.Sub(t00)
	var pid int
	err = tm.Run("qemu", func() (err error) { pid, err = l.start(ctx); return err })
	qemuUp := time.Since(t0)
	if err != nil {
		return fmt.Errorf("start vm %s: %w", id, err)
	}
	ri.PID, ri.Start = pid, procid.Start(pid)
	if err := tm.Run("ready", func() error { return b.waitReady(ctx, id, ri) }); err != nil {
		return err
	}
	ri.Phases = bootPhases(prep, qemuUp, time.Since(t0), readPhases(l.Dir))
	debugf("boot phases: %v", ri.Phases)
	return b.writeRun(l.Dir, ri)
}

// waitReady records the running qemu and waits for the guest's SSH banner.
func (b *Backend) waitReady(ctx context.Context, id string, ri *runInfo) error {
	dir := b.dir(id)
	data, _ := json.Marshal(ri)
	if err := fsx.WriteFileAtomic(filepath.Join(dir, "run.json"), data, 0o600); err != nil {
		syscall.Kill(ri.PID, syscall.SIGKILL)
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, BootTimeout)
	defer cancel()
	if err := waitSSH(wctx, ri.Port, func() bool { return procid.Start(ri.PID) == ri.Start }); err != nil {
		b.kill(dir, ri)
		if errors.Is(err, context.DeadlineExceeded) {
			err = vm.ErrStartTimeout
		}
		return fmt.Errorf("start vm %s: %w; console: %s", id, err, tail(filepath.Join(dir, "console.log"), 5))
	}
	return nil
}

func (b *Backend) writeRun(dir string, ri *runInfo) error {
	data, _ := json.Marshal(ri)
	if err := fsx.WriteFileAtomic(filepath.Join(dir, "run.json"), data, 0o600); err != nil {
		return err
	}
	b.watchConsole(dir, ri)
	return os.WriteFile(filepath.Join(dir, "booted"), nil, 0o600)
}

// kill ends qemu for good and waits until it is gone.
func (b *Backend) kill(dir string, r *runInfo) {
	if procid.Start(r.PID) == r.Start {
		syscall.Kill(r.PID, syscall.SIGKILL)
	}
	waitGone(r, 5*time.Second)
	os.Remove(filepath.Join(dir, "qmp.sock"))
	os.Remove(filepath.Join(dir, "ctl.sock"))
	wsgate.Stop(context.Background(), dir)
}

func waitGone(r *runInfo, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for procid.Start(r.PID) == r.Start {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// Stop implements vm.Backend: it saves the guest's memory and device state
// (saveState: processes and tmpfs survive to the next Start). When that
// fails, the guest's init flushes and unmounts its disks on a "poweroff"
// over the control port; QMP quit and SIGKILL are the fallbacks.
func (b *Backend) Stop(ctx context.Context, id string) error {
	defer b.lock(id)()
	if _, err := b.loadConfig(id); err != nil {
		return err
	}
	r, ok := b.running(id)
	if !ok {
		return nil
	}
	dir := b.dir(id)
	err := b.saveState(ctx, dir, r)
	if err == nil {
		if !waitGone(r, 10*time.Second) {
			debugf("qemu still alive after saving state")
		}
		b.kill(dir, r)
		return nil
	}
	debugf("save state: %v; powering off", err)
	dropState(dir)
	if c, err := net.DialTimeout("unix", filepath.Join(dir, "ctl.sock"), time.Second); err == nil {
		c.SetDeadline(time.Now().Add(2 * time.Second))
		c.Write([]byte("poweroff\n"))
		t0 := time.Now()
		if waitGone(r, 15*time.Second) {
			debugf("clean power-off in %v", time.Since(t0))
			c.Close()
			b.kill(dir, r)
			return nil
		}
		c.Close()
	}
	debugf("no clean power-off; qmp quit")
	qmp(ctx, filepath.Join(dir, "qmp.sock"), "quit")
	waitGone(r, 5*time.Second)
	b.kill(dir, r)
	return nil
}

// Remove implements vm.Backend.
func (b *Backend) Remove(ctx context.Context, id string) error {
	defer b.lock(id)()
	if _, err := b.loadConfig(id); err != nil {
		return err
	}
	dir := b.dir(id)
	if r, ok := b.running(id); ok {
		b.kill(dir, r)
	}
	return b.removeOwned(dir)
}

// removeOwned deletes what the backend made in a state dir; the dir itself
// goes too when nothing else is left in it.
func (b *Backend) removeOwned(dir string) error {
	if err := wsgate.Stop(context.Background(), dir); err != nil {
		return err // never delete through a live mount of the user's folder
	}
	for _, f := range []string{"config.json", "run.json", "booted", "root.qcow2", "workspace.img", "initrd.img", stateFile, stateMeta, stateFile + ".tmp",
		"console.log", "qemu.pid", "qmp.sock", "ctl.sock", "clone.tmp"} {
		if err := os.RemoveAll(filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	os.Remove(dir) // fails (fine) if others keep files there
	return nil
}

// Status implements vm.Backend.
func (b *Backend) Status(ctx context.Context, id string) (vm.Status, error) {
	if _, err := b.loadConfig(id); err != nil {
		return vm.Status{}, err
	}
	r, ok := b.running(id)
	if ok {
		return vm.Status{State: vm.StateRunning, PID: r.PID, Note: r.Note, Accelerator: r.Accel, Kernel: r.Kernel, MemoryBytes: procRSS(r.PID)}, nil
	}
	if _, err := os.Stat(filepath.Join(b.dir(id), "booted")); err == nil {
		st := vm.Status{State: vm.StateStopped}
		if fi, err := os.Stat(filepath.Join(b.dir(id), stateFile)); err == nil {
			st.Note = fmt.Sprintf("memory saved (%d MB): start resumes it", fi.Size()>>20)
		}
		return st, nil
	}
	return vm.Status{State: vm.StateCreated}, nil
}

// LastPhases returns the phase breakdown of the sandbox's last Start while
// it runs (nil otherwise).
func (b *Backend) LastPhases(id string) Phases {
	if r, ok := b.running(id); ok {
		return r.Phases
	}
	return nil
}

// Dial implements vm.Backend: a TCP connection to qemu's forward of the
// guest's :22 on 127.0.0.1.
func (b *Backend) Dial(ctx context.Context, id string) (net.Conn, error) {
	if _, err := b.loadConfig(id); err != nil {
		return nil, err
	}
	r, ok := b.running(id)
	if !ok {
		return nil, fmt.Errorf("sandbox %s: %w", id, vm.ErrNotRunning)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(r.Port))
}
