package microvm

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
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

	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/procid"
)

// Saved machine state: Stop migrates the paused guest's memory and device
// state to stateFile in the sandbox's state dir; Start resumes from it and
// deletes it as soon as the guest runs again (the disks move on from then,
// so the old state must never be loaded again). The state belongs to one
// qemu binary and one exact command line; stateMeta records both and the
// file's SHA-256, and anything that does not match means a cold boot (the
// disks are untouched by a failed resume).
const (
	stateFile = "vmstate"
	stateMeta = "vmstate.json"
)

type savedState struct {
	QEMU   string `json:"qemu"`   // qemuIdentity() when saved
	Args   string `json:"args"`   // launch.fingerprint() of the saving qemu
	SHA256 string `json:"sha256"` // of stateFile
	Size   int64  `json:"size"`
	Saved  int64  `json:"saved"` // Unix seconds
}

// qemuIdentity names the qemu binary: path, size and mtime (a package
// upgrade changes them; a saved state from another qemu version is refused).
func qemuIdentity() string {
	p, err := exec.LookPath(QEMU)
	if err != nil {
		return ""
	}
	fi, err := os.Stat(p)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", p, fi.Size(), fi.ModTime().UnixNano())
}

// fingerprint hashes the command line minus what may differ between the
// saving and the resuming qemu (the host port of the SSH forward).
func (l *launch) fingerprint() string {
	c := *l
	c.Port = 0
	c.Incoming = ""
	h := sha256.Sum256([]byte(strings.Join(c.args(), "\x00")))
	return hex.EncodeToString(h[:])
}

// qmpSession is one QMP connection for several commands.
type qmpSession struct {
	c   net.Conn
	dec *json.Decoder
}

func dialQMP(ctx context.Context, sock string) (*qmpSession, error) {
	d := net.Dialer{Timeout: 2 * time.Second}
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, err
	}
	s := &qmpSession{c: c, dec: json.NewDecoder(bufio.NewReader(c))}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	var greet map[string]json.RawMessage
	if err := s.dec.Decode(&greet); err != nil {
		c.Close()
		return nil, fmt.Errorf("qmp greeting: %w", err)
	}
	if _, err := s.do("qmp_capabilities", nil); err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

func (s *qmpSession) Close() error { return s.c.Close() }

// do runs one command and returns its "return" value (events are skipped).
func (s *qmpSession) do(cmd string, args any) (json.RawMessage, error) {
	return s.doFD(cmd, args, nil)
}

// doFD is do with a file passed along (SCM_RIGHTS), for getfd.
func (s *qmpSession) doFD(cmd string, args any, f *os.File) (json.RawMessage, error) {
	s.c.SetDeadline(time.Now().Add(10 * time.Second))
	req := map[string]any{"execute": cmd}
	if args != nil {
		req["arguments"] = args
	}
	b, _ := json.Marshal(req)
	b = append(b, '\n')
	if f != nil {
		uc, ok := s.c.(*net.UnixConn)
		if !ok {
			return nil, errors.New("qmp: not a unix socket")
		}
		if _, _, err := uc.WriteMsgUnix(b, unix.UnixRights(int(f.Fd())), nil); err != nil {
			return nil, err
		}
	} else if _, err := s.c.Write(b); err != nil {
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
		if err := s.dec.Decode(&resp); err != nil {
			return nil, fmt.Errorf("qmp %s: %w", cmd, err)
		}
		if resp.Event != "" {
			continue
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("qmp %s: %s", cmd, resp.Error.Desc)
		}
		return resp.Return, nil
	}
}

// status is query-status's "status" (running, paused, inmigrate, ...).
func (s *qmpSession) status() (string, error) {
	r, err := s.do("query-status", nil)
	if err != nil {
		return "", err
	}
	var st struct {
		Status string `json:"status"`
	}
	return st.Status, json.Unmarshal(r, &st)
}

// ctlCommand sends one line on the guest's control port and waits for the
// answer line.
func ctlCommand(dir, line string, timeout time.Duration) (string, error) {
	c, err := net.DialTimeout("unix", filepath.Join(dir, "ctl.sock"), timeout)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return "", err
	}
	ans, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(ans), err
}

// shellQuote quotes a path for qemu's exec: migration URIs (run by /bin/sh).
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// saveState pauses the running guest, migrates its state to the state dir
// and ends qemu. On an error before the state is complete the guest is
// resumed and the caller powers it off instead.
func (b *Backend) saveState(ctx context.Context, dir string, r *runInfo) (err error) {
	if r.Args == "" {
		return errors.New("no command line fingerprint (qemu started by an older version)")
	}
	t0 := time.Now()
	if ans, err := ctlCommand(dir, "sync", 10*time.Second); err != nil || ans != "ok" {
		debugf("guest sync before save: %q %v", ans, err)
	}
	q, err := dialQMP(ctx, filepath.Join(dir, "qmp.sock"))
	if err != nil {
		return err
	}
	defer q.Close()
	tmp := filepath.Join(dir, stateFile+".tmp")
	os.Remove(tmp)
	defer func() {
		if err != nil {
			os.Remove(tmp)
			q.do("cont", nil)
		}
	}()
	if _, err := q.do("stop", nil); err != nil {
		return err
	}
	// qemu may run as nobody by now: it gets the open file, not the path.
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = q.doFD("getfd", map[string]any{"fdname": "vmstate"}, out)
	out.Close()
	if err != nil {
		return err
	}
	if _, err := q.do("migrate", map[string]any{"uri": "fd:vmstate"}); err != nil {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		raw, err := q.do("query-migrate", nil)
		if err != nil {
			return err
		}
		var m struct {
			Status string `json:"status"`
			Error  string `json:"error-desc"`
		}
		json.Unmarshal(raw, &m)
		if m.Status == "completed" {
			break
		}
		if m.Status == "failed" || m.Status == "cancelled" {
			return fmt.Errorf("migrate: %s %s", m.Status, m.Error)
		}
		if time.Now().After(deadline) {
			q.do("migrate_cancel", nil)
			return errors.New("migrate: timed out")
		}
		time.Sleep(20 * time.Millisecond)
	}
	sum, size, err := hashFile(tmp)
	if err != nil {
		return err
	}
	meta, _ := json.Marshal(savedState{QEMU: qemuIdentity(), Args: r.Args, SHA256: sum, Size: size, Saved: time.Now().Unix()})
	if err := fsx.WriteFileAtomic(filepath.Join(dir, stateMeta), meta, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, stateFile)); err != nil {
		return err
	}
	q.do("quit", nil)
	debugf("saved state (%d MB) in %v", size>>20, time.Since(t0))
	return nil
}

func hashFile(p string) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// dropState deletes the saved state (after a resume, a refused one, or rm).
func dropState(dir string) {
	for _, f := range []string{stateFile, stateMeta, stateFile + ".tmp"} {
		os.Remove(filepath.Join(dir, f))
	}
}

// usableState checks the saved state's metadata against this qemu and
// command line; "" means resume, otherwise the reason it cannot be used.
func usableState(dir string, l *launch) (meta *savedState, why string) {
	if _, err := os.Stat(filepath.Join(dir, stateFile)); err != nil {
		return nil, "none"
	}
	b, err := os.ReadFile(filepath.Join(dir, stateMeta))
	if err != nil {
		return nil, "no metadata"
	}
	var m savedState
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, "unreadable metadata"
	}
	if m.QEMU != qemuIdentity() {
		return nil, "saved by another qemu version"
	}
	if m.Args != l.fingerprint() {
		return nil, "saved with another machine configuration"
	}
	if fi, err := os.Stat(filepath.Join(dir, stateFile)); err != nil || fi.Size() != m.Size {
		return nil, "state file has the wrong size"
	}
	if _, err := os.Stat(l.Initrd); err != nil {
		return nil, "initramfs missing"
	}
	return &m, ""
}

// resume starts qemu paused on the saved state (-incoming, -S), checks the
// state file's hash while qemu loads it, then lets the guest run and sets
// its clock. On any error qemu is killed and the caller cold-boots.
func (b *Backend) resume(ctx context.Context, l *launch, meta *savedState, ri *runInfo) error {
	t0 := time.Now()
	path := filepath.Join(l.Dir, stateFile)
	l.Incoming = "exec:cat " + shellQuote(path)
	defer func() { l.Incoming = "" }()
	hashed := make(chan error, 1)
	go func() {
		sum, _, err := hashFile(path)
		if err == nil && sum != meta.SHA256 {
			err = errors.New("state file checksum mismatch")
		}
		hashed <- err
	}()
	pid, err := l.start(ctx)
	if err != nil {
		<-hashed
		return err
	}
	ri.PID, ri.Start = pid, procid.Start(pid)
	ri.Phases = Phases{{"qemu start", time.Since(t0)}}
	t0 = time.Now()
	fail := func(err error) error {
		b.kill(l.Dir, ri)
		return err
	}
	if err := <-hashed; err != nil {
		return fail(err)
	}
	q, err := dialQMP(ctx, filepath.Join(l.Dir, "qmp.sock"))
	if err != nil {
		return fail(err)
	}
	defer q.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := q.status()
		if err != nil {
			return fail(fmt.Errorf("loading state: %w", err)) // qemu exits when the load fails
		}
		if st == "paused" || st == "postmigrate" {
			break
		}
		if st != "inmigrate" && st != "prelaunch" {
			return fail(fmt.Errorf("loading state: status %s", st))
		}
		if time.Now().After(deadline) {
			return fail(errors.New("loading state: timed out"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	ri.Phases = append(ri.Phases, Phase{"state load", time.Since(t0)})
	t0 = time.Now()
	if _, err := q.do("cont", nil); err != nil {
		return fail(err)
	}
	defer func() { ri.Phases = append(ri.Phases, Phase{"clock", time.Since(t0)}) }()
	// A guest just resumed under TCG on a loaded host can take seconds to
	// answer; its clock is behind by the whole pause until it does.
	for try := 0; try < 3; try++ {
		ans, err := ctlCommand(l.Dir, "time "+strconv.FormatInt(time.Now().UnixNano(), 10), 5*time.Second)
		if err == nil && ans == "ok" {
			break
		}
		debugf("guest clock after resume (try %d): %q %v", try+1, ans, err)
	}
	return nil
}
