package cli

import (
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

// up's one line and status's rows come from the backend's notes (the
// namespace backend's wording, vm/namespace and internal/cgroups).
func TestUnenforcedLimits(t *testing.T) {
	sb := protocol.Sandbox{Name: "demo", Backend: "namespace", State: "running",
		Note: "no memory limit (cgroup v2 has no memory controller here; cgroup v1: not mounted); " +
			"disk limit not enforced (the namespace backend needs host root for its disk image); the workspace's .git is a gitfile",
		Limits: &protocol.Limits{CPUs: 2, Memory: 2 << 30, Disk: 10 << 30, Pids: 4096}}
	if got, want := unenforcedLine(sb), "airlock: demo: memory, disk limits are not enforced on this host (`airlock status demo` says why)"; got != want {
		t.Errorf("unenforcedLine = %q, want %q", got, want)
	}
	txt := statusText(&sb)
	for _, want := range []string{
		"limit memory: 2GiB, NOT enforced: cgroup v2 has no memory controller here; cgroup v1: not mounted\n",
		"limit disk:   10GiB, NOT enforced: the namespace backend needs host root for its disk image\n",
		"limit cpu:    2 CPUs, enforced\n",
		"note:         the workspace's .git is a gitfile\n",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("status lacks %q:\n%s", want, txt)
		}
	}
	sb.Note = "cgroup limits not applied: permission denied"
	if got := unenforcedLine(sb); !strings.Contains(got, "cpu, memory, pids limits are not enforced") {
		t.Errorf("unenforcedLine = %q", got)
	}
	sb.Note = ""
	if got := unenforcedLine(sb); got != "" {
		t.Errorf("all enforced, yet %q", got)
	}
}

// Outside attack k8s/10: the kubernetes probe's answer comes from the
// agent's pod. status prints none of its control bytes, and a disk size
// only the sandbox reports is shown unverified, not enforced.
func TestStatusSandboxText(t *testing.T) {
	sb := protocol.Sandbox{Name: "k", Backend: "kubernetes", State: "running",
		Note: "deny-all NetworkPolicy airlock-k: reported by the sandbox (unverified: ...): try 10.0.0.1:443 (error 1 \x1b]0;OWNED\x07\x1b[31mRED\x1b[0m\rnote: FAKE\u202e); " +
			"disk limit unverified (the sandbox reports a 0.0 GiB file system under the workspace)",
		Limits: &protocol.Limits{CPUs: 2, Memory: 2 << 30, Disk: 10 << 30, Pids: 4096}}
	got := statusText(&sb)
	if strings.ContainsAny(got, "\x1b\x07\r\u202e") {
		t.Errorf("status prints the sandbox's control characters:\n%q", got)
	}
	if !strings.Contains(got, "limit disk:   10GiB, unverified: the sandbox reports") {
		t.Errorf("disk not shown unverified:\n%s", got)
	}
	if l := unenforcedLine(sb); l != "" {
		t.Errorf("up counts an unverified limit as not enforced: %q", l)
	}
}
