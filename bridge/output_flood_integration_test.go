package bridge_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

// floodPlant makes the agent answer the review snapshot (`sh -s`) with 4
// GB, as a compromised agent would (outside attacks k8s/02 and 17, on the
// namespace backend): through ~/.local/bin/sh (the review called "sh" from
// the agent's PATH) and through ~/.bashrc, which Debian's bash reads for a
// command it sees started by an SSH daemon (SSH_CLIENT set); the rc file
// also leaves a mark.
const floodPlant = `set -e
mkdir -p ~/.local/bin
printf '#!/bin/sh\nexec head -c 4000000000 /dev/zero\n' > ~/.local/bin/sh
chmod +x ~/.local/bin/sh
{ cat <<'E'
case "$BASH_EXECUTION_STRING" in
*"sh -s"*) touch /tmp/rc-ran; exec head -c 4000000000 /dev/zero;;
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

// peakGrowth runs f while sampling pid's resident size every 100 ms, and
// 2 s after (a drain going on after the answer would grow it still); it
// returns the growth over the size before, in KiB.
func peakGrowth(pid int, f func()) int {
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
	f()
	time.Sleep(2 * time.Second)
	close(stop)
	return int(peak.Load()) - base
}

// TestReviewOutputFloodBounded: the review snapshot runs as /bin/sh (not
// the agent's PATH) with no rc file (guestout.NoRC), so the agent's
// planted answers do not run; before, the bridge read their 4 GB whole
// (cappedBuffer's promoted bytes.Buffer.ReadFrom bypassed its cap: +15.8
// GiB, 2m52s). A guest that still floods a bridge reader (sandbox.exec
// here) is read up to the cap: the bridge stays small.
func TestReviewOutputFloodBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	repo := reviewRepo(t)
	name := h.Up(t, fmt.Sprintf(reviewHCL, "flood", "clone"), repo)
	if out, errOut, code := h.Exec(t, name, "bash", "-c", floodPlant); code != 0 {
		t.Fatalf("plant: %d %s %s", code, out, errOut)
	}
	var out, errOut string
	var code int
	start := time.Now()
	grown := peakGrowth(h.BridgePID(), func() { out, errOut, code = h.Airlock(t, "review", name) })
	t.Logf("review exit %d after %v, bridge grew %d MiB: %s", code, time.Since(start).Round(time.Millisecond), grown>>10, strings.TrimSpace(errOut+" "+out[:min(len(out), 300)]))
	if code != 0 || !strings.Contains(out, "modified README.md") {
		t.Errorf("review did not capture the change: exit %d", code)
	}
	if _, _, c := h.Exec(t, name, "test", "-e", "/tmp/rc-ran"); c == 0 {
		t.Errorf("the agent's ~/.bashrc ran for the review snapshot")
	}
	if grown > 64<<10 {
		t.Errorf("bridge grew %d MiB during review (want < 64)", grown>>10)
	}
	var res protocol.ExecResult
	start = time.Now()
	grown = peakGrowth(h.BridgePID(), func() {
		err := h.Client(t).Call(context.Background(), protocol.MethodExec,
			protocol.ExecParams{Name: name, Argv: []string{"/bin/sh", "-c", "yes abcdefghijklmnopqrstuvwxyz | head -c 1000000000"}}, &res)
		if err != nil {
			t.Errorf("exec: %v", err)
		}
	})
	t.Logf("exec of a 1 GB answer: %d bytes kept after %v, bridge grew %d MiB", len(res.Stdout), time.Since(start).Round(time.Millisecond), grown>>10)
	if len(res.Stdout) != 16<<20 || grown > 256<<10 {
		t.Errorf("exec kept %d bytes and grew the bridge %d MiB (want 16 MiB kept, < 256 MiB grown)", len(res.Stdout), grown>>10)
	}
}
