package bridge_test

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
)

// templateRoundTrip saves the "runner" sandbox (Claude Code installed,
// agent state in ~/.claude) as a template, checks on the host that the
// template holds the install and the state but no credential, hidden file,
// workspace file or SSH host key, then brings up a new sandbox from it in
// which `airlock run claude` needs no install.
func templateRoundTrip(t *testing.T, h *bridgetest.Harness, sh func(string) string, dir string) {
	sh(`mkdir -p ~/.ssh ~/proj && echo key > ~/.ssh/id_ed25519 && echo tok > ~/.claude/.credentials.json &&
		echo S=1 > ~/proj/.env && echo pem > ~/proj/tls.pem && echo machine > ~/.netrc && echo ws > /workspace/ws-only`)
	out, errOut, code := h.Airlock(t, "save", "runner", "claude-base")
	if code != 0 || !strings.HasPrefix(out, "claude-base: ") {
		t.Fatalf("save: exit %d: %s %s", code, out, errOut)
	}
	names := templateNames(t, filepath.Join(h.Home(), "templates", "claude-base", "home.tar"))
	for _, want := range []string{".local/bin/claude", ".claude/airlock-state", ".local/share/airlock/agents/claude"} {
		if !names[want] {
			t.Errorf("template lacks %s", want)
		}
	}
	for n := range names {
		for _, bad := range []string{".ssh", ".credentials.json", ".env", ".pem", ".netrc", "ws-only", ".npm/_cacache", ".cache/"} {
			if strings.Contains(n, bad) {
				t.Errorf("template holds %s", n)
			}
		}
	}
	hostKey, err := os.ReadFile(filepath.Join(h.Home(), "sandboxes", "runner", "host_key"))
	if err != nil {
		t.Fatal(err)
	}
	if tpl, _ := os.ReadFile(filepath.Join(h.Home(), "templates", "claude-base", "home.tar")); strings.Contains(string(tpl), strings.TrimSpace(string(hostKey))) {
		t.Error("template holds the sandbox's SSH host key")
	}
	out, _, _ = h.Airlock(t, "templates")
	if !strings.Contains(out, "claude-base") || !strings.Contains(out, "runner") {
		t.Errorf("templates: %s", out)
	}
	if out, _, _ := h.Airlock(t, "templates", "--json"); !strings.Contains(out, `"name": "claude-base"`) || !strings.Contains(out, `".ssh"`) {
		t.Errorf("templates --json: %s", out)
	}

	// A missing template fails up before anything is created.
	bad := filepath.Join(dir, "bad.hcl")
	os.WriteFile(bad, []byte(strings.Replace(runHCL, `"runner"`, `"nope"`, 1)), 0o644)
	if _, errOut, code := h.Airlock(t, "up", "--yes", "-f", bad, "--template", "missing"); code == 0 || !strings.Contains(errOut, `template "missing": no such template`) {
		t.Fatalf("up from a missing template: exit %d: %s", code, errOut)
	}

	// Fresh and from the template, side by side.
	fresh := filepath.Join(dir, "fresh.hcl")
	os.WriteFile(fresh, []byte(strings.Replace(runHCL, `"runner"`, `"fresh"`, 1)), 0o644)
	t0 := time.Now()
	if _, errOut, code := h.Airlock(t, "up", "--yes", "-f", fresh); code != 0 {
		t.Fatalf("up fresh: %s", errOut)
	}
	tFresh := time.Since(t0)
	from := filepath.Join(dir, "from.hcl")
	os.WriteFile(from, []byte(strings.Replace(runHCL, `sandbox "runner" {`, "sandbox \"from\" {\n  template = \"claude-base\"", 1)), 0o644)
	t0 = time.Now()
	if _, errOut, code := h.Airlock(t, "up", "--yes", "-f", from); code != 0 {
		t.Fatalf("up from template: %s", errOut)
	}
	t.Logf("up: fresh %s, from template %s (%d files restored)", tFresh.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond), len(names))
	out, errOut, code = h.Airlock(t, "run", "claude", "-f", from, "--", "--version")
	if code != 0 || !claudeVersionRE.MatchString(out) || strings.Contains(errOut, "installing") {
		t.Fatalf("run in the sandbox from the template: exit %d\n%s\n%s", code, out, errOut)
	}
	if got, _, _ := h.Exec(t, "from", "cat", "/home/agent/.claude/airlock-state"); strings.TrimSpace(got) != "kept" {
		t.Errorf("agent state from the template: %q", got)
	}
	if _, _, code := h.Exec(t, "from", "test", "-e", "/home/agent/.ssh/id_ed25519"); code == 0 {
		t.Error("the new sandbox got the old one's ~/.ssh")
	}
	for _, n := range []string{"fresh", "from"} {
		h.Airlock(t, "rm", n)
	}
	if _, errOut, code := h.Airlock(t, "templates", "rm", "claude-base"); code != 0 {
		t.Fatalf("templates rm: %s", errOut)
	}
	if _, errOut, code := h.Airlock(t, "templates", "rm", "claude-base"); code != 1 || !strings.Contains(errOut, "no such template") {
		t.Errorf("templates rm twice: exit %d %s", code, errOut)
	}
}

func templateNames(t *testing.T, file string) map[string]bool {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names := map[string]bool{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names[strings.TrimSuffix(h.Name, "/")] = true
	}
}
