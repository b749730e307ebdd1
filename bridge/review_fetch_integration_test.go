package bridge_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
)

// TestReviewFetchSharesOneConnection: review's fetches from a clone-mode
// sandbox go over one shared SSH connection (a ControlMaster socket in
// AIRLOCK_HOME/ssh), and removing the sandbox ends it and its ssh-proxy:
// nothing of it is left running.
func TestReviewFetchSharesOneConnection(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	repo := reviewRepo(t)
	hcl := fmt.Sprintf(reviewHCL, "cm", "clone")
	name := h.Up(t, hcl, repo)
	for i := 0; i < 2; i++ {
		if _, e, code := h.Exec(t, name, "sh", "-c", fmt.Sprintf("echo %d >> /workspace/README.md", i)); code != 0 {
			t.Fatalf("edit: %s", e)
		}
		if out, e, code := h.Airlock(t, "review", name, "--json"); code != 0 && code != 3 {
			t.Fatalf("review: %d %s %s", code, out, e)
		}
	}
	socks, _ := filepath.Glob(filepath.Join(h.Home(), "ssh", "cm-*"))
	if len(socks) != 1 {
		t.Fatalf("control sockets after two reviews: %v, want one", socks)
	}
	if n := processesNaming(h.Home()); n == 0 {
		t.Fatal("no ssh master or ssh-proxy names the harness's home while the sandbox runs")
	}
	// The bridge's own fetches never start a bridge (one cut short as the
	// bridge stopped brought up a second bridge on the old state).
	if all, noStart := proxiesNaming(h.Home()); all == 0 || noStart != all {
		t.Fatalf("%d ssh-proxy processes of review's fetch, %d with --no-start", all, noStart)
	}
	if _, e, code := h.Airlock(t, "rm", "--force", name); code != 0 {
		t.Fatalf("rm: %s", e)
	}
	deadline := time.Now().Add(10 * time.Second)
	for processesNaming(h.Home()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("an ssh master or ssh-proxy of the removed sandbox is still running")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// processesNaming counts the processes other than the bridge whose
// command line names home (review's ssh master and its `airlock
// ssh-proxy`; the bridge is started with its home in the environment).
func processesNaming(home string) int {
	n := 0
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(cmd, home) && (strings.Contains(cmd, "[mux]") || strings.Contains(cmd, "ssh-proxy")) {
			n++
		}
	}
	return n
}

// proxiesNaming counts the `airlock ssh-proxy` processes of home (in their
// environment), and those of them that may not start a bridge.
func proxiesNaming(home string) (all, noStart int) {
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains("\x00"+string(env), "\x00AIRLOCK_HOME="+home+"\x00") && strings.Contains(cmd, " ssh-proxy ") {
			all++
			if strings.Contains(cmd, " ssh-proxy --no-start ") {
				noStart++
			}
		}
	}
	return all, noStart
}
