package bridge_test

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
)

// floodPlant makes the agent answer the review snapshot (`sh -s`) with 4
// GiB, as a compromised agent would (outside attacks k8s/02 and 17, on the
// namespace backend): through ~/.local/bin/sh (the review called "sh" from
// the agent's PATH) and through ~/.bashrc, which Debian's bash reads for a
// command run by an SSH daemon (SSH_CLIENT set), so it answers
// "/bin/sh -s" too.
const floodPlant = `set -e
mkdir -p ~/.local/bin
printf '#!/bin/sh\nexec head -c 4000000000 /dev/zero\n' > ~/.local/bin/sh
chmod +x ~/.local/bin/sh
{ cat <<'E'
case "$BASH_EXECUTION_STRING" in
*"sh -s"|*"/sys/class/net/"*) exec head -c 4000000000 /dev/zero;;
esac
E
cat ~/.bashrc 2>/dev/null; } > ~/.bashrc.new
mv ~/.bashrc.new ~/.bashrc
echo b >> /workspace/README.md
`

// rssKiB is pid's resident set size in KiB (0 when it is gone).
func rssKiB(pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

// TestReviewOutputFloodBounded: a guest that answers the review snapshot
// with GiBs must not grow the bridge (it reads 1 MiB and hangs up), and the
// review fails instead of showing a partial snapshot.
func TestReviewOutputFloodBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	repo := reviewRepo(t)
	hcl := fmt.Sprintf(reviewHCL, "flood", "clone")
	name := h.Up(t, hcl, repo)
	if out, errOut, code := h.Exec(t, name, "bash", "-c", floodPlant); code != 0 {
		t.Fatalf("plant: %d %s %s", code, out, errOut)
	}
	pid := h.BridgePID()
	base := rssKiB(pid)
	var peak atomic.Int64
	stop := make(chan struct{})
	go func() {
		for {
			if r := int64(rssKiB(pid)); r > peak.Load() {
				peak.Store(r)
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	out, errOut, code := h.Airlock(t, "review", name)
	took := time.Since(start)
	time.Sleep(2 * time.Second) // a drain going on after the answer would grow it still
	close(stop)
	grown := int(peak.Load()) - base
	t.Logf("review exit %d after %v; bridge RSS %d MiB before, grew %d MiB; %s", code, took.Round(time.Millisecond), base>>10, grown>>10, strings.TrimSpace(errOut)+" "+out[:min(len(out), 400)])
	if !strings.Contains(out, "answer exceeded") {
		t.Errorf("review did not say the snapshot was refused: exit %d", code)
	}
	if grown > 64<<10 {
		t.Errorf("bridge grew %d MiB while the guest flooded (want < 64)", grown>>10)
	}
	if took > 30*time.Second {
		t.Errorf("review took %v: the bridge kept reading the flood", took)
	}
}
