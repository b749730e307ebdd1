package bridgetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/testenv"
	"github.com/airlock-sandbox/airlock/vm/namespace"
)

// Harness is one private airlock installation with a running bridge.
type Harness struct {
	home    string // $AIRLOCK_HOME
	userDir string // $HOME for the CLI and bridge
	bin     string // directory holding airlock and airlock-agent
	env     []string
	bridge  *exec.Cmd
	exited  chan struct{}
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// moduleRoot is the repository root, found from this source file.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Binaries builds airlock and airlock-agent (static, CGO_ENABLED=0) once
// per process and returns the directory holding them.
func Binaries(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		// One directory per checkout, reused by every test process (no temp
		// dir left behind per run); each binary is built beside its final
		// name and renamed into place, so parallel packages never see a
		// half-written file.
		sum := sha256.Sum256([]byte(moduleRoot()))
		buildDir = filepath.Join(os.TempDir(), fmt.Sprintf("airlock-test-bin-%x", sum[:6]))
		if buildErr = os.MkdirAll(buildDir, 0o755); buildErr != nil {
			return
		}
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
		for _, pkg := range []string{"airlock", "airlock-agent"} {
			tmp := filepath.Join(buildDir, fmt.Sprintf(".%s.%d", pkg, os.Getpid()))
			cmd := exec.Command(goBin, "build", "-o", tmp, "./cmd/"+pkg)
			cmd.Dir = moduleRoot()
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				os.Remove(tmp)
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
			// Identical to what another test process put there (builds are
			// reproducible): keep that file. Renaming over it swaps the
			// inode under a sandbox starting in that process, whose
			// detached mount of airlock-agent then fails to move
			// ("move_mount: no such file or directory", a clean-clone make
			// test).
			final := filepath.Join(buildDir, pkg)
			if sameContent(tmp, final) {
				os.Remove(tmp)
				continue
			}
			if buildErr = os.Rename(tmp, final); buildErr != nil {
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatalf("bridgetest: %v", buildErr)
	}
	return buildDir
}

// sameContent reports whether files a and b both exist with the same bytes.
func sameContent(a, b string) bool {
	sum := func(p string) ([]byte, bool) {
		f, err := os.Open(p)
		if err != nil {
			return nil, false
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return nil, false
		}
		return h.Sum(nil), true
	}
	x, ok1 := sum(a)
	y, ok2 := sum(b)
	return ok1 && ok2 && bytes.Equal(x, y)
}

// Available returns nil when the namespace backend works here.
func Available() error {
	b, err := namespace.New(os.TempDir())
	if err != nil {
		return err
	}
	return b.Available(context.Background())
}

// New starts a bridge with a private home; it skips the test when
// namespace sandboxes cannot run here. Everything is removed at cleanup
// (sandboxes first, then the bridge, then the directories).
func New(t testing.TB) *Harness {
	t.Helper()
	if err := Available(); err != nil {
		testenv.Missing(t, "namespace sandboxes unavailable: %v", err)
	}
	bin := Binaries(t)
	// Short paths: unix socket paths under the home must fit in 108 bytes.
	root, err := os.MkdirTemp("", "alh-")
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{home: filepath.Join(root, "home"), userDir: filepath.Join(root, "user"), bin: bin, exited: make(chan struct{})}
	for _, d := range []string{h.home, h.userDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	h.env = append(os.Environ(),
		"AIRLOCK_HOME="+h.home,
		"AIRLOCK_AGENT="+filepath.Join(bin, "airlock-agent"),
		"AIRLOCK_BIN="+filepath.Join(bin, "airlock"),
		"HOME="+h.userDir,
		"AIRLOCK_BRIDGE_PARENT="+strconv.Itoa(os.Getpid()), // no leaked sandboxes if the test binary dies
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
	)
	t.Cleanup(func() {
		h.cleanup(t)
		os.RemoveAll(root)
	})
	h.StartBridge(t)
	return h
}

// StartBridge starts the bridge subprocess (New already did) and waits
// until it answers.
func (h *Harness) StartBridge(t testing.TB) {
	t.Helper()
	cmd := exec.Command(filepath.Join(h.bin, "airlock"), "bridge")
	cmd.Env = h.env
	logf, err := os.OpenFile(filepath.Join(h.home, "bridge.stderr"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logf.Close()
	h.bridge = cmd
	h.exited = make(chan struct{})
	go func(ch chan struct{}) { cmd.Wait(); close(ch) }(h.exited)
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := bridge.Dial(context.Background(), h.home)
		if err == nil {
			err = c.Call(context.Background(), protocol.MethodPing, struct{}{}, nil)
			c.Close()
			if err == nil {
				return
			}
		}
		select {
		case <-h.exited:
			t.Fatalf("bridge exited early: %s", h.BridgeLog())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("bridge did not come up: %v\n%s", err, h.BridgeLog())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// KillBridge kills the bridge with SIGKILL (sandboxes keep running) and waits for it.
func (h *Harness) KillBridge(t testing.TB) {
	t.Helper()
	if h.bridge == nil {
		return
	}
	h.bridge.Process.Kill()
	<-h.exited
	h.bridge = nil
}

// BridgePID is the pid of the bridge subprocess (0 if not running).
func (h *Harness) BridgePID() int {
	if h.bridge == nil {
		return 0
	}
	return h.bridge.Process.Pid
}

func (h *Harness) cleanup(t testing.TB) {
	if h.bridge != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if c, err := bridge.Dial(ctx, h.home); err == nil {
			var l protocol.ListResult
			if c.Call(ctx, protocol.MethodList, struct{}{}, &l) == nil {
				for _, s := range l.Sandboxes {
					if err := c.Call(ctx, protocol.MethodRemove, protocol.NameParams{Name: s.Name}, nil); err != nil {
						t.Logf("bridgetest cleanup: rm %s: %v", s.Name, err)
					}
				}
			}
			c.Close()
		}
		h.bridge.Process.Signal(os.Interrupt)
		select {
		case <-h.exited:
		case <-time.After(10 * time.Second):
			h.bridge.Process.Kill()
			<-h.exited
		}
	}
	if t.Failed() {
		t.Logf("bridge log:\n%s", h.BridgeLog())
	}
}

// Home is the harness's $AIRLOCK_HOME.
func (h *Harness) Home() string { return h.home }

// UserHome is the $HOME the CLI and bridge see.
func (h *Harness) UserHome() string { return h.userDir }

// Bin is the directory holding the airlock and airlock-agent binaries.
func (h *Harness) Bin() string { return h.bin }

// Env is the environment for running airlock (or ssh through its config).
func (h *Harness) Env() []string { return append([]string(nil), h.env...) }

// BridgeLog returns the bridge's log so far.
func (h *Harness) BridgeLog() string {
	a, _ := os.ReadFile(filepath.Join(h.home, "logs", "bridge.log"))
	b, _ := os.ReadFile(filepath.Join(h.home, "bridge.stderr"))
	return string(a) + string(b)
}

// Client connects to the harness's bridge; closed at cleanup.
func (h *Harness) Client(t testing.TB) *bridge.Client {
	t.Helper()
	c, err := bridge.Dial(context.Background(), h.home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Airlock runs the CLI against the harness and returns its output and exit code.
func (h *Harness) Airlock(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return h.run(t, nil, args...)
}

// AirlockStdin is Airlock with stdin.
func (h *Harness) AirlockStdin(t testing.TB, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return h.run(t, strings.NewReader(stdin), args...)
}

func (h *Harness) run(t testing.TB, stdin *strings.Reader, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(h.bin, "airlock"), args...)
	cmd.Env = h.env
	cmd.Dir = h.userDir
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var xe *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errb.String(), 0
	case errors.As(err, &xe):
		return out.String(), errb.String(), xe.ExitCode()
	}
	t.Fatalf("run airlock %v: %v", args, err)
	return "", "", -1
}

// Up writes hclText to dir/sandbox.hcl, runs `airlock up --yes` and returns
// the sandbox name. dir is a directory the test made (often a git repo).
func (h *Harness) Up(t testing.TB, hclText string, dir string) string {
	t.Helper()
	return h.UpFile(t, hclText, filepath.Join(dir, "sandbox.hcl"))
}

// UpFile is Up with the config written to file (any name, as with -f).
func (h *Harness) UpFile(t testing.TB, hclText string, file string) string {
	t.Helper()
	if err := os.WriteFile(file, []byte(hclText), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := h.Airlock(t, "up", "--yes", "-f", file)
	if code != 0 {
		t.Fatalf("airlock up: exit %d: %s\nbridge log:\n%s", code, errOut, h.BridgeLog())
	}
	return strings.TrimSpace(out)
}

// Exec runs cmd in the sandbox as the agent user (`airlock exec NAME -- cmd...`).
func (h *Harness) Exec(t testing.TB, name string, cmd ...string) (stdout, stderr string, code int) {
	t.Helper()
	return h.Airlock(t, append([]string{"exec", name, "--"}, cmd...)...)
}
