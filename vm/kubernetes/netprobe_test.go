package kubernetes

import (
	"net"
	"os/exec"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// The probe script runs here under the host's sh and bash, against a
// listener (open) and a closed port (refused); the verdict reads what it
// prints. (No address is sure to stay silent on every host: this one
// answers for TEST-NET-1.)
func TestProbeScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	out, err := exec.Command("bash", "-c", netScript([]string{l.Addr().String(), closedAddr})+dfScript(t.TempDir())).Output()
	if err != nil {
		t.Fatalf("script: %v\n%s", err, out)
	}
	got := string(out)
	for _, want := range []string{"if lo\n", "try " + l.Addr().String() + " open\n", "try " + closedAddr + " refused\n", "\ndf "} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}

func TestProbeVerdict(t *testing.T) {
	const from = "from pod airlock-sb-probe (the bridge's, selected by the policy, running none of the agent's code)"
	for _, c := range []struct{ out, want string }{
		{"if lo\ntry 10.0.0.1:6443 unreachable\n", "not enforced by this cluster's network plugin, which gives pods no interface but loopback"},
		{"if eth0\nif lo\ntry 10.0.0.1:6443 refused\ntry 10.0.0.2:10250 timeout\n", "NOT enforced by this cluster's network plugin: " + from + " a connection to 10.0.0.1:6443 (refused) got an answer"},
		{"if eth0\nif lo\ntry 10.0.0.1:6443 timeout\ntry 10.0.0.2:10250 unreachable\n", "enforced, as far as a probe can tell: " + from + " 10.0.0.1:6443 (timeout), 10.0.0.2:10250 (unreachable) got no answer"},
		{"if eth0\nif lo\n", "unknown: pods have a network (eth0, seen " + from},
	} {
		if got := probeVerdict(c.out, "airlock-sb-probe"); !strings.HasPrefix(got, c.want) {
			t.Errorf("%q:\n got %s\nwant %s", c.out, got, c.want)
		}
	}
}

// A hostile answer (outside attack k8s/10 planted one in the agent's
// ~/.bashrc when the network probe ran over SSH; the df still does): the
// verdict and the disk note carry none of its terminal escapes, and the
// disk note says it is the sandbox's report.
func TestProbeVerdictFromAHostileAnswer(t *testing.T) {
	out := "if eth0\ntry 10.0.0.1:443 error 1 \x1b]0;OWNED\x07\x1b[31mRED\x1b[0m\rnote: FAKE\u202e\ndf 1024\n"
	got := probeVerdict(out, "airlock-sb-probe")
	if strings.ContainsAny(got, "\x1b\x07\r\n\u202e") {
		t.Errorf("verdict carries the answer's control characters: %q", got)
	}
	if d := diskNote(out, 1<<30); !strings.HasPrefix(d, "disk limit unverified (the sandbox reports") {
		t.Errorf("a small df from the sandbox: %q", d)
	}
}

func TestProbeTargets(t *testing.T) {
	b := &Backend{}
	b.cfg = &rest.Config{Host: "https://10.1.2.3:6443"}
	if got := strings.Join(b.probeTargets("10.9.9.9"), " "); got != "10.1.2.3:6443 10.9.9.9:10250" {
		t.Errorf("targets %q", got)
	}
	b.cfg = &rest.Config{Host: "https://127.0.0.1:6443"} // the pod's own loopback: meaningless
	if got := strings.Join(b.probeTargets(""), " "); got != "" {
		t.Errorf("loopback API server: targets %q", got)
	}
}

func TestDiskNote(t *testing.T) {
	if got := diskNote("if lo\ndf 1048576\n", 1<<30); !strings.HasPrefix(got, "disk limit unverified (the sandbox reports a 1.0 GiB file system") {
		t.Errorf("a 1 GiB file system for a 1 GiB claim: %q", got)
	}
	if got := diskNote("df 52428800\n", 1<<30); !strings.HasPrefix(got, "disk limit not enforced (home and workspace are on a 50 GiB file system") {
		t.Errorf("50 GiB for a 1 GiB claim: %q", got)
	}
	if got := diskNote("no df line\n", 1<<30); got != "" {
		t.Errorf("no df: %q", got)
	}
}
