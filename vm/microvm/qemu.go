package microvm

import (
	"bufio"
	"bytes"
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
	"time"

	"golang.org/x/sys/unix"
)

// QEMU is the emulator binary.
const QEMU = "qemu-system-x86_64"

// share is a host folder exported over virtio-9p.
type share struct {
	Tag      string `json:"tag"`
	Path     string `json:"path"`
	ReadOnly bool   `json:"read_only"`
}

// launch describes one qemu process.
type launch struct {
	Dir       string // state dir: sockets, pid file, console log
	Kernel    string
	Initrd    string
	CPUs      int
	MemoryMiB int
	KVM       bool
	Port      int // host 127.0.0.1 port forwarded to guest :22
	RootDisk  string
	WorkDisk  string // "" when none
	Shares    []share
	RunAs     string // drop to this user after setup ("" = stay)
	Incoming  string // migration URI to resume from ("" = boot); the guest stays paused (-S)
}

func (l *launch) args() []string {
	a := []string{
		"-name", "airlock-" + filepath.Base(l.Dir),
		"-M", "microvm,rtc=on",
		"-nodefaults", "-no-user-config", "-no-reboot",
		"-display", "none",
		"-m", strconv.Itoa(l.MemoryMiB) + "M",
		"-smp", strconv.Itoa(l.CPUs),
		"-kernel", l.Kernel,
		"-initrd", l.Initrd,
		// Appending, so the backend can truncate the log under qemu (capConsole).
		"-chardev", "file,id=con0,append=on,path=" + filepath.Join(l.Dir, "console.log"),
		"-serial", "chardev:con0",
		"-qmp", "unix:" + filepath.Join(l.Dir, "qmp.sock") + ",server=on,wait=off",
		"-pidfile", filepath.Join(l.Dir, "qemu.pid"),
		"-daemonize",
	}
	a = append(a, l.accel()...)
	a = append(a, "-append", l.cmdline()+" -- vminit")
	// Disks come as fd sets (a read-write and a read-only fd each, passed
	// by start): qemu reopens them when it saves state, and by then it may
	// run as nobody, who cannot open files in the state dir by path.
	for i, d := range l.disks() {
		set := strconv.Itoa(i + 1)
		a = append(a,
			"-add-fd", "fd="+strconv.Itoa(3+2*i)+",set="+set,
			"-add-fd", "fd="+strconv.Itoa(4+2*i)+",set="+set,
			"-drive", "id="+d.id+",file=/dev/fdset/"+set+",format="+d.format+",if=none,discard=unmap",
			"-device", "virtio-blk-device,drive="+d.id+",serial="+d.serial,
		)
	}
	for i, s := range l.Shares {
		id := "fs" + strconv.Itoa(i)
		opt := "local,id=" + id + ",path=" + s.Path + ",security_model=none"
		if s.ReadOnly {
			opt += ",readonly=on"
		}
		a = append(a, "-fsdev", opt, "-device", "virtio-9p-device,fsdev="+id+",mount_tag="+s.Tag)
	}
	a = append(a,
		"-netdev", "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:"+strconv.Itoa(l.Port)+"-:22",
		"-device", "virtio-net-device,netdev=n0",
		"-device", "virtio-rng-device",
		// Free page reporting: the guest hands pages it frees back to the
		// host (qemu drops them), so idle RSS follows what the guest uses.
		"-device", "virtio-balloon-device,free-page-reporting=on",
		"-device", "virtio-serial-device",
		"-chardev", "socket,id=ctl,path="+filepath.Join(l.Dir, "ctl.sock")+",server=on,wait=off",
		"-device", "virtserialport,chardev=ctl,name="+controlPort,
	)
	if l.RunAs != "" {
		a = append(a, "-runas", l.RunAs)
	}
	if l.Incoming != "" {
		a = append(a, "-S", "-incoming", l.Incoming)
	}
	return a
}

// TCGCacheMiB is the TCG translation cache size. qemu's default (1 GiB,
// filled lazily) lets a guest's RSS grow by hundreds of MB of translated
// code (a boot alone fills ~85 MB); with 64 MiB a full cache is flushed and
// refilled instead of grown.
const TCGCacheMiB = 64

// accel is the accelerator and CPU model: KVM when the probe said so,
// otherwise TCG with a bounded translation cache.
func (l *launch) accel() []string {
	if l.KVM {
		return []string{"-accel", "kvm", "-cpu", "host"}
	}
	return []string{"-accel", "tcg,tb-size=" + strconv.Itoa(TCGCacheMiB), "-cpu", "max"}
}

// cmdline is the guest kernel's command line. Each item is there for boot
// time on the Debian generic kernel (measured under TCG):
//   - quiet: every console byte is an emulated UART write;
//   - tsc=reliable: no clocksource watchdog, which under a loaded host's
//     TCG marks the TSC unstable and falls back to jiffies (slow, drifting
//     guest clock);
//   - cryptomgr.notests: no crypto self-tests at boot;
//   - lsm=landlock,yama and audit=0: no AppArmor/TOMOYO/IMA set-up (the guest's
//     LSMs are no part of the boundary: the VM is);
//   - tsc_early_khz under TCG: without a given TSC rate the guest sometimes
//     hangs calibrating it;
//   - mitigations=off under TCG only: speculative-execution mitigations
//     protect the guest kernel from guest processes and cost a lot when
//     emulated; under KVM the guest keeps the defaults.
func (l *launch) cmdline() string {
	c := "console=ttyS0 panic=-1 rdinit=/init tsc=reliable cryptomgr.notests lsm=landlock,yama audit=0"
	if os.Getenv("AIRLOCK_VM_DEBUG") == "" {
		c += " quiet"
	}
	if !l.KVM {
		if khz := hostTSCkHz(); khz > 0 {
			c += " tsc_early_khz=" + strconv.Itoa(khz)
		}
		c += " mitigations=off"
	}
	return c
}

type disk struct{ id, path, format, serial string }

// disks are the guest's block devices in fd-set order.
func (l *launch) disks() []disk {
	d := []disk{{"root", l.RootDisk, "qcow2", rootSerial}}
	if l.WorkDisk != "" {
		d = append(d, disk{"ws", l.WorkDisk, "raw", workSerial})
	}
	return d
}

// diskFiles opens each disk read-write and read-only (fds 3, 4, 5, ...).
func (l *launch) diskFiles() ([]*os.File, error) {
	var fs []*os.File
	for _, d := range l.disks() {
		for _, flag := range []int{os.O_RDWR, os.O_RDONLY} {
			f, err := os.OpenFile(d.path, flag, 0)
			if err != nil {
				for _, f := range fs {
					f.Close()
				}
				return nil, fmt.Errorf("disk %s: %w", d.id, err)
			}
			fs = append(fs, f)
		}
	}
	return fs, nil
}

const (
	rootSerial  = "airlock-root"
	workSerial  = "airlock-ws"
	controlPort = "airlock.ctl"
)

// start runs qemu -daemonize: it returns once qemu has set up its devices
// and written its pid file (errors such as a bad disk come back here).
// A qemu that was just killed can still hold its image's lock for a
// moment after it shows as stopped (a clean-clone CI run under load:
// `Failed to get "write" lock`): that one error is tried again, for up
// to 2 s.
func (l *launch) start(ctx context.Context) (int, error) {
	for i := 0; ; i++ {
		pid, err := l.startOnce(ctx)
		if err == nil || i >= 10 || !strings.Contains(err.Error(), `Failed to get "write" lock`) {
			return pid, err
		}
		select {
		case <-ctx.Done():
			return 0, err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// startOnce is one qemu -daemonize.
func (l *launch) startOnce(ctx context.Context) (int, error) {
	os.Remove(filepath.Join(l.Dir, "qemu.pid"))
	os.Remove(filepath.Join(l.Dir, "console.log"))
	files, err := l.diskFiles()
	if err != nil {
		return 0, err
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	cmd := exec.CommandContext(ctx, QEMU, l.args()...)
	cmd.ExtraFiles = files
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &unix.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("qemu: %v: %s", err, strings.TrimSpace(out.String()))
	}
	b, err := os.ReadFile(filepath.Join(l.Dir, "qemu.pid"))
	if err != nil {
		return 0, fmt.Errorf("qemu pid file: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("qemu pid file: %w", err)
	}
	return pid, nil
}

// procRSS is a process's resident set size in bytes (0 if unknown).
func procRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func hostTSCkHz() int {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "cpu MHz" {
			mhz, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return int(mhz * 1000)
			}
		}
	}
	return 0
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitSSH waits until the guest's sshd sends its banner through the forward.
// qemu accepts on the host side even before the guest listens, so a TCP
// connect alone proves nothing; and a connection made before the guest's
// network is up stays open with no answer until slirp retransmits its SYN
// (seconds). So attempts overlap: a new one starts every 100 ms while the
// older ones wait, and the first banner wins (up lost ~2 s to one stuck
// attempt before).
func waitSSH(ctx context.Context, port int, alive func() bool) error {
	const (
		every   = 100 * time.Millisecond
		patient = 3 * time.Second // one attempt's wait for the banner
	)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	won := make(chan struct{}, 1)
	attempt := func() {
		d := net.Dialer{Timeout: patient}
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return
		}
		defer c.Close()
		stop := context.AfterFunc(ctx, func() { c.Close() })
		defer stop()
		c.SetReadDeadline(time.Now().Add(patient))
		buf := make([]byte, 4)
		if _, err := io.ReadFull(c, buf); err == nil && string(buf) == "SSH-" {
			select {
			case won <- struct{}{}:
			default:
			}
		}
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		go attempt()
		select {
		case <-won:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			if !alive() {
				return errors.New("qemu exited during boot")
			}
		}
	}
}

// qmp runs one QMP command on the socket and returns its "return" value.
func qmp(ctx context.Context, sock, command string) (json.RawMessage, error) {
	d := net.Dialer{Timeout: 2 * time.Second}
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	dec := json.NewDecoder(c)
	var greet map[string]json.RawMessage
	if err := dec.Decode(&greet); err != nil {
		return nil, fmt.Errorf("qmp greeting: %w", err)
	}
	for _, cmd := range []string{"qmp_capabilities", command} {
		if _, err := fmt.Fprintf(c, `{"execute":%q}`+"\n", cmd); err != nil {
			return nil, err
		}
		for {
			var resp struct {
				Return json.RawMessage `json:"return"`
				Error  *struct {
					Desc string `json:"desc"`
				} `json:"error"`
				Event string `json:"event"`
			}
			if err := dec.Decode(&resp); err != nil {
				if cmd == "quit" {
					return nil, nil // qemu closed the socket as it exited
				}
				return nil, err
			}
			if resp.Event != "" {
				continue
			}
			if resp.Error != nil {
				return nil, fmt.Errorf("qmp %s: %s", cmd, resp.Error.Desc)
			}
			if cmd == command {
				return resp.Return, nil
			}
			break
		}
	}
	return nil, nil
}
