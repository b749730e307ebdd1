//go:build linux

package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/fsx"
)

// An sshd that runs as the agent's uid (every Kubernetes pod, the
// namespace backend's serve process) is not dumpable: its /proc files
// belong to root, so the agent cannot open /proc/PID/mem or ptrace it
// (outside round k8s-round2/09 and 13 rewrote the sshd's shell path that
// way). Checked on a helper process running as nobody, with a control
// that does not call disableTracing.
func TestDisableTracing(t *testing.T) {
	if os.Getenv("AIRLOCK_TEST_DUMPABLE_HELPER") != "" {
		if os.Getenv("AIRLOCK_TEST_DUMPABLE_HELPER") == "off" {
			if err := disableTracing(); err != nil {
				os.Exit(3)
			}
		}
		os.Stdout.Write([]byte("ready\n"))
		time.Sleep(30 * time.Second)
		os.Exit(0)
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the helper as another uid")
	}
	// A copy nobody can execute (the go test binary's directory is 0700).
	dir, err := os.MkdirTemp("", "dumpable")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "agent.test")
	if err := fsx.CopyFile(os.Args[0], bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode      string
		wantOwner uint32
	}{{"on", 65534}, {"off", 0}} {
		cmd := exec.Command(bin, "-test.run=^TestDisableTracing$")
		cmd.Env = []string{"AIRLOCK_TEST_DUMPABLE_HELPER=" + c.mode}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 6)
		if _, err := out.Read(buf); err != nil {
			t.Fatalf("helper (dumpable %s): %v", c.mode, err)
		}
		var st syscall.Stat_t
		err = syscall.Stat("/proc/"+strconv.Itoa(cmd.Process.Pid)+"/mem", &st)
		cmd.Process.Kill()
		cmd.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if st.Uid != c.wantOwner {
			t.Errorf("tracing %s: /proc/PID/mem owned by uid %d, want %d", c.mode, st.Uid, c.wantOwner)
		}
	}
}
