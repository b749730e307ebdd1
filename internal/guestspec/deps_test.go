package guestspec

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/airlock-sandbox/airlock/"

// deps lists the packages pkg links, split into this module's (relative
// names) and everyone else's.
func deps(t *testing.T, pkg string) (own, other []string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", mod+pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	for _, d := range strings.Fields(string(out)) {
		if rel, ok := strings.CutPrefix(d, mod); ok {
			own = append(own, rel)
		} else {
			other = append(other, d)
		}
	}
	return own, other
}

// TestGuestLinksOnlyGuestCode: the guest binary links only the packages on
// this allow-list from the module — a new import of anything else, host or
// shared, fails here until someone decides it belongs inside.
func TestGuestLinksOnlyGuestCode(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command in PATH")
	}
	allowed := map[string]bool{"cmd/airlock-agent": true, "internal/agent": true, "sshd": true, "internal/guestspec": true}
	own, _ := deps(t, "cmd/airlock-agent")
	for _, p := range own {
		if !allowed[p] {
			t.Errorf("the guest binary links %s, which is not on the guest allow-list", p)
		}
	}
}

// TestHostLinksNoGuestCode: the host binary links neither the guest's
// packages nor the libraries only the guest's server needs.
func TestHostLinksNoGuestCode(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command in PATH")
	}
	own, other := deps(t, "cmd/airlock")
	for _, p := range own {
		if p == "internal/agent" || p == "sshd" || strings.HasPrefix(p, "sshd/") || p == "cmd/airlock-agent" {
			t.Errorf("the host binary links guest package %s", p)
		}
	}
	for _, p := range other {
		if strings.HasPrefix(p, "github.com/gliderlabs/ssh") || strings.HasPrefix(p, "github.com/creack/pty") {
			t.Errorf("the host binary links %s, a guest-side server library", p)
		}
	}
}

// TestLeaf: both sides import this package, so it imports only the
// standard library.
func TestLeaf(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command in PATH")
	}
	own, other := deps(t, "internal/guestspec")
	if len(own) != 1 || len(other) != 0 {
		t.Errorf("guestspec links %v and %v; it must link only the standard library", own, other)
	}
}
