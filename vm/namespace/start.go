//go:build linux

package namespace

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/internal/cgroups"
	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/guestspec"
	"github.com/airlock-sandbox/airlock/internal/steptime"
	"github.com/airlock-sandbox/airlock/internal/wsgate"
	"github.com/airlock-sandbox/airlock/vm"
)

// DefaultStartTimeout bounds Start when ctx has no deadline.
const DefaultStartTimeout = 30 * time.Second

// Start implements vm.Backend: it starts `airlock-agent init` in new
// namespaces and returns once the guest sshd accepts connections.
func (b *Backend) Start(ctx context.Context, id string) (err error) {
	defer b.lock(id)()
	r, err := b.loadForStart(id)
	if err != nil {
		return err
	}
	dir := b.dir(id)
	if p, ok := readPidFile(dir); ok && p.alive() {
		return fmt.Errorf("start sandbox %s: %w", id, vm.ErrRunning)
	}
	if err := b.Available(ctx); err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStartTimeout)
		defer cancel()
	}
	os.Remove(filepath.Join(dir, pidFile))
	os.Remove(filepath.Join(dir, "ssh.sock"))
	cgroups.RemoveSaved(filepath.Join(dir, cgroups.File))

	ids := b.ids
	if !ids.single {
		ids = idMap{base: r.IDBase}
		if r.IDBase == 0 {
			ids.base = 100000 // created before per-sandbox ranges
		}
	}
	l := &launch{b: b, ids: ids, dir: dir, spec: &r.Spec, tm: steptime.Of(ctx)}
	defer l.tm.Debug("namespace: start " + id)
	defer l.closeChildFiles()
	p, note, err := l.run(ctx)
	if err != nil {
		wsgate.Stop(context.Background(), dir)
		cgroups.RemoveSaved(filepath.Join(dir, cgroups.File))
		return fmt.Errorf("start sandbox %s: %w", id, err)
	}
	r.Started = true
	r.Note = note
	if err := b.save(id, r); err != nil {
		p.kill(context.Background())
		os.Remove(filepath.Join(dir, pidFile))
		return fmt.Errorf("start sandbox %s: %w", id, err)
	}
	return nil
}

// launch is one start attempt: the descriptors handed to the init and the
// notes collected on the way.
type launch struct {
	b     *Backend
	ids   idMap
	dir   string
	spec  *vm.Spec
	files []*os.File // the init's fds 3, 4, ...
	notes []string

	data    string   // dataDir: where home/, var/, workspace/ are
	cgroups []string // the sandbox's cgroup directories the gate joins
	unmount func()   // detaches the disk image's host mount
	tm      *steptime.Timer
}

// pass hands f to the init and returns its descriptor number there.
func (l *launch) pass(f *os.File) int {
	l.files = append(l.files, f)
	return 2 + len(l.files)
}

func (l *launch) closeChildFiles() {
	for _, f := range l.files {
		f.Close()
	}
	l.files = nil
}

// initFDs are the descriptors the init gets (its numbers there) and the
// host's ends of its two pipes.
type initFDs struct {
	state, exe, ready, sync int
	readyR, syncW           *os.File // closed by run
}

// run starts the sandbox in named steps: the init's descriptors, the
// cgroups, the disk, the mounts (and the workspace gate), the init's spec,
// exec, ready. It returns the init and the notes collected.
func (l *launch) run(ctx context.Context) (proc, string, error) {
	var fds initFDs
	err := l.tm.Run("files", func() (err error) { fds, err = l.passFiles(); return err })
	if fds.readyR != nil {
		defer fds.readyR.Close()
	}
	if fds.syncW != nil {
		defer fds.syncW.Close()
	}
	if err != nil {
		return proc{}, "", err
	}
	var cg *cgroups.Group
	if err := l.tm.Run("cgroups", func() (err error) { cg, err = l.setupCgroups(); return err }); err != nil {
		return proc{}, "", err
	}
	if err := l.tm.Run("mount disk", l.mountDisk); err != nil {
		return proc{}, "", err
	}
	var mounts []guestspec.NSMount
	err = l.tm.Run("mounts", func() (err error) { mounts, err = l.prepareMounts(ctx); return err })
	// The init gets the disk's trees as clones (open_tree descriptors):
	// the host's own mount of it goes while the init starts.
	unmounted := make(chan struct{})
	go func() {
		defer close(unmounted)
		l.tm.Run("unmount disk", func() error { l.unmountDisk(); return nil })
	}()
	defer func() { <-unmounted }()
	if err != nil {
		return proc{}, "", err
	}
	if err := l.tm.Run("init spec", func() error { return l.writeInitSpec(fds, mounts) }); err != nil {
		return proc{}, "", err
	}
	logF, err := l.openInitLog()
	if err != nil {
		return proc{}, "", err
	}
	defer logF.Close()
	var p proc
	if err := l.tm.Run("exec", func() (err error) { p, err = l.execInit(logF, fds, cg); return err }); err != nil {
		return proc{}, "", err
	}
	if err := l.tm.Run("ready", func() error { return l.waitReady(ctx, fds.readyR) }); err != nil {
		p.kill(context.Background())
		os.Remove(filepath.Join(l.dir, pidFile))
		cg.Remove()
		return proc{}, "", err
	}
	traceHost(logF, "host ready")
	return p, strings.Join(l.notes, "; "), nil
}

// passFiles hands the init its state directory, the agent binary and the
// write end of the ready pipe and read end of the sync pipe.
func (l *launch) passFiles() (initFDs, error) {
	var fds initFDs
	stateF, err := os.OpenFile(l.dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return fds, err
	}
	fds.state = l.pass(stateF)
	exeF, err := os.Open(l.spec.AgentBinary)
	if err != nil {
		return fds, fmt.Errorf("agent binary: %w", err)
	}
	fds.exe = l.pass(exeF)
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return fds, err
	}
	fds.readyR, fds.ready = readyR, l.pass(readyW)
	syncR, syncW, err := os.Pipe()
	if err != nil {
		return fds, err
	}
	fds.syncW, fds.sync = syncW, l.pass(syncR)
	return fds, nil
}

// setupCgroups makes the sandbox's cgroups. They come first: the workspace
// gate (prepareMounts) joins them, so its memory and processes count against
// the sandbox's limits. Start removes them on failure, after the gate is
// gone.
func (l *launch) setupCgroups() (*cgroups.Group, error) {
	cg, note := cgroups.Setup(cgroups.Name(l.spec.ID, l.dir), cgroups.Limits{CPUs: l.spec.CPUs, Memory: l.spec.MemoryBytes, Pids: l.spec.Pids})
	if note != "" {
		l.notes = append(l.notes, note)
	}
	if err := cg.Save(filepath.Join(l.dir, cgroups.File)); err != nil {
		cg.Remove()
		return nil, err
	}
	// The gate shares the sandbox's memory (and CPU) groups but not its
	// pids group on v1 hosts: it gets tasks of its own (wsgate.Start).
	l.cgroups = cg.Without("pids")
	cgroups.Warm() // execInit's Place is ~8 ms from now (and see prepareWorkspace)
	return cg, nil
}

// writeInitSpec writes spec.json in the state directory (owned by the
// sandbox's root) for the init to read through its state descriptor.
func (l *launch) writeInitSpec(fds initFDs, mounts []guestspec.NSMount) error {
	spec := l.spec
	is := guestspec.InitSpec{
		Hostname:       spec.ID,
		User:           "agent",
		UID:            agentUID,
		GID:            agentGID,
		Home:           guestHome,
		Shell:          "/bin/bash",
		Env:            envList(spec.Env),
		HostKeyPEM:     spec.HostKeyPEM,
		AuthorizedKeys: spec.AuthorizedKeys,
		Workspace:      spec.Workspace.Target,
		Namespace: &guestspec.NSSpec{
			State:    fmt.Sprintf("/proc/self/fd/%d", fds.state),
			ReadyFD:  fds.ready,
			SyncFD:   fds.sync,
			EtcBinds: etcBinds,
			Mounts:   mounts,
			SingleID: l.ids.single,
			Root:     rootMount(l),
			CloseFDs: []int{fds.state, fds.exe},
		},
	}
	// The files' bytes go beside the spec, not in its JSON (see
	// guestspec.NSSpec.FileData).
	var fileData []byte
	for _, f := range spec.Files {
		fileData = append(fileData, f.Data...)
		f.Size, f.Data = len(f.Data), nil
		is.Files = append(is.Files, f)
	}
	if len(is.Files) > 0 {
		is.Namespace.FileData = initFileData
	}
	if err := is.Validate(); err != nil {
		return err
	}
	data, err := json.Marshal(&is)
	if err != nil {
		return err
	}
	if err := l.writeForInit(initFileData, fileData); err != nil {
		return err
	}
	return l.writeForInit("spec.json", data)
}

// initFileData is the spec's file data in the state directory.
const initFileData = "spec-files"

// writeForInit writes a file in the state directory owned by the
// sandbox's root, which the init reads through its state descriptor. The
// directory is that root's too: a new file renamed over the name, never a
// write through whatever is there (a symlink a previous run's init could
// have left would have had host root write elsewhere: outside round
// startpath/01).
func (l *launch) writeForInit(name string, data []byte) error {
	p := filepath.Join(l.dir, name)
	if err := fsx.ReplaceFile(p, data, 0o600); err != nil {
		return err
	}
	if err := os.Lchown(p, l.ids.hostUID(0), l.ids.hostGID(0)); err != nil && os.Geteuid() == 0 {
		return err
	}
	return nil
}

// openInitLog opens init.log for this start (keeping one old log past
// 1 MiB) and marks where the start begins.
func (l *launch) openInitLog() (*os.File, error) {
	logPath := filepath.Join(l.dir, "init.log")
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > 1<<20 {
		os.Rename(logPath, logPath+".1") // keep one old log
	}
	logF, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logF, "--- start %s\n", time.Now().UTC().Format(time.RFC3339Nano))
	return logF, nil
}

// execInit starts `airlock-agent init` from the agent binary's descriptor
// in new namespaces, records its pid and places it in cg; the init then
// waits for the sync pipe, which closes here.
func (l *launch) execInit(logF *os.File, fds initFDs, cg *cgroups.Group) (proc, error) {
	cmd := &exec.Cmd{
		Path: fmt.Sprintf("/proc/self/fd/%d", fds.exe),
		Args: []string{"airlock-agent", "init", "--spec", fmt.Sprintf("/proc/self/fd/%d/spec.json", fds.state)},
		// AIRLOCK_INIT_TRACE=1 makes the init log each step's duration to init.log.
		Env:         []string{"PATH=/usr/bin:/bin", "AIRLOCK_INIT_TRACE=" + os.Getenv("AIRLOCK_INIT_TRACE")},
		Dir:         "/",
		Stdout:      logF,
		Stderr:      logF,
		ExtraFiles:  l.files,
		SysProcAttr: sysProcAttr(l.ids),
	}
	traceHost(logF, "host exec")
	if err := l.tm.Sub("exec").Run("fork", cmd.Start); err != nil {
		cg.Remove()
		return proc{}, fmt.Errorf("exec init: %w", err)
	}
	traceHost(logF, "host exec returned")
	l.closeChildFiles()
	go cmd.Wait() // reap it if it dies while we are its parent
	p, err := procOf(cmd.Process.Pid)
	if err == nil {
		// (If the init already died, the ready pipe tells why.)
		if err := writePidFile(l.dir, p); err != nil {
			(proc{PID: cmd.Process.Pid, StartTime: p.StartTime}).kill(context.Background())
			os.Remove(filepath.Join(l.dir, pidFile))
			cg.Remove()
			return proc{}, err
		}
	}
	if err := l.tm.Sub("exec").Run("cgroup", func() error { return cg.Place(p.PID) }); err != nil {
		l.notes = append(l.notes, "cgroup limits not applied: "+err.Error())
	}
	fds.syncW.Close()
	return p, nil
}

// waitReady waits for the init's "ok" on the ready pipe (its sshd
// listens); anything else is the error, or the tail of init.log when it
// died without a word.
func (l *launch) waitReady(ctx context.Context, readyR *os.File) error {
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(readyR).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		if s == "ok" {
			return nil
		}
		if s == "" {
			s = "init exited: " + logTail(filepath.Join(l.dir, "init.log"))
		}
		return errors.New(s)
	case <-ctx.Done():
		return fmt.Errorf("%w: %v", vm.ErrStartTimeout, ctx.Err())
	}
}

// traceHost adds a wall-clock mark to init.log when AIRLOCK_INIT_TRACE is
// set; the init and the sshd add theirs (see agent.traceMark).
func traceHost(w *os.File, what string) {
	if os.Getenv("AIRLOCK_INIT_TRACE") != "" {
		fmt.Fprintf(w, "trace %d %s\n", time.Now().UnixMicro(), what)
	}
}

func envList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// logTail returns the last lines of the init log of this start, for start
// errors, from the log's last 64 KiB (the sandbox's processes write to it).
func logTail(file string) string {
	data, err := fsx.ReadTail(file, 64<<10)
	if err != nil {
		return "(no log)"
	}
	s := string(data)
	if i := strings.LastIndex(s, "--- start "); i >= 0 {
		s = s[i:]
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if !strings.HasPrefix(l, "---") && !strings.HasPrefix(l, "trace ") && !strings.HasPrefix(l, "init step ") {
			lines = append(lines, l)
		}
	}
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	if len(lines) == 0 {
		return "(nothing logged)"
	}
	return strings.Join(lines, " | ")
}

// rootMount is where the init mounts the new root: under an unprivileged
// user the bind sources are host paths (possibly under /tmp), so the state
// dir's rootfs/; as root every source is a descriptor and /tmp will do.
func rootMount(l *launch) string {
	if l.ids.single {
		return filepath.Join(l.dir, "rootfs")
	}
	return ""
}
