package bridge_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

// Provenance in a real namespace sandbox: review JSON carries it and apply
// writes it as trailers real git parses.
func TestProvenanceReviewAndApplyTrailers(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	repo := reviewRepo(t)
	name := h.Up(t, fmt.Sprintf(reviewHCL, "prov", "clone"), repo)
	if out, e, code := h.Exec(t, name, "sh", "-c", "cd /workspace && echo 'package main // v2' > src/main.go"); code != 0 {
		t.Fatalf("agent: %d %s %s", code, out, e)
	}
	out, e, code := h.Airlock(t, "review", name, "--json")
	if code != 0 {
		t.Fatalf("review: %d %s\n%s", code, e, h.BridgeLog())
	}
	var res protocol.ReviewResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	p := res.Provenance
	if p == nil {
		t.Fatalf("no provenance in review JSON:\n%s", out)
	}
	hostKernel, _ := exec.Command("uname", "-r").Output()
	hcl, _ := os.ReadFile(filepath.Join(repo, "sandbox.hcl"))
	planSum := sha256.Sum256(hcl)
	if p.Backend != "namespace" || p.Accelerator != "none" || p.Image != "" {
		t.Errorf("backend/accelerator/image: %+v", p)
	}
	if p.Kernel == "" || p.Kernel != strings.TrimSpace(string(hostKernel)) {
		t.Errorf("kernel %q, want the host's %q (namespace sandboxes share it)", p.Kernel, hostKernel)
	}
	if p.Plan != hex.EncodeToString(planSum[:]) {
		t.Errorf("plan %q, want the sandbox.hcl's SHA-256 %x", p.Plan, planSum)
	}
	if st, err := time.Parse(time.RFC3339, p.Started); err != nil || time.Since(st) > 10*time.Minute {
		t.Errorf("started %q: %v", p.Started, err)
	}
	if p.Version == "" || p.SignerKeys == nil {
		t.Errorf("version/signer keys: %+v", p)
	}
	// The policy digest is that of the effective policy `airlock policy ls` shows.
	pout, e, code := h.Airlock(t, "policy", "ls", name, "--json")
	if code != 0 {
		t.Fatalf("policy ls: %d %s", code, e)
	}
	var pol protocol.PolicyListResult
	if err := json.Unmarshal([]byte(pout), &pol); err != nil {
		t.Fatal(err)
	}
	if d := pol.Digest(); p.Policy != d {
		t.Errorf("policy digest %s does not match the effective policy's %s", p.Policy, d)
	}
	txt, _, _ := h.Airlock(t, "review", name)
	if !strings.Contains(txt, "ran on namespace (none)") {
		t.Errorf("review text lacks provenance:\n%s", txt)
	}

	o, e, code := h.Airlock(t, "apply", name)
	if code != 0 {
		t.Fatalf("apply: %d %s %s", code, o, e)
	}
	got := hostGit(t, repo, "log", "-1", "--format=%(trailers:only,unfold)", "airlock/prov")
	want := map[string]string{
		"Airlock-Sandbox": name, "Airlock-Backend": "namespace (none)", "Airlock-Kernel": p.Kernel,
		"Airlock-Plan": "sha256:" + p.Plan, "Airlock-Policy": "sha256:" + p.Policy, "Airlock-Version": p.Version,
	}
	for k, v := range want {
		if !strings.Contains(got, k+": "+v+"\n") {
			t.Errorf("trailer %s: %s missing from\n%s", k, v, got)
		}
	}
	if strings.Contains(got, "Airlock-Image") {
		t.Errorf("namespace sandbox got an image trailer:\n%s", got)
	}
	msg := hostGit(t, repo, "log", "-1", "--format=%B", "airlock/prov")
	cmd := exec.Command("git", "interpret-trailers", "--parse")
	cmd.Stdin = strings.NewReader(msg)
	parsed, err := cmd.Output()
	if err != nil || !regexp.MustCompile(`(?m)^Airlock-Plan: sha256:[0-9a-f]{64}$`).Match(parsed) {
		t.Errorf("interpret-trailers --parse: %v\n%s", err, parsed)
	}
	// Same work as the snapshot (which stays in the quarantine): its tree
	// and parents, as the sandbox's own git reports them.
	snapTree, _, _ := h.Exec(t, name, "git", "-C", "/workspace", "rev-parse", res.Snapshot+"^{tree}")
	snapParents, _, _ := h.Exec(t, name, "git", "-C", "/workspace", "rev-parse", res.Snapshot+"^@")
	if a := hostGit(t, repo, "rev-parse", "airlock/prov^{tree}"); a != snapTree || a == "" {
		t.Errorf("branch tree %s != snapshot tree %s", a, snapTree)
	}
	if a := hostGit(t, repo, "rev-parse", "airlock/prov^@"); a != snapParents || a == "" {
		t.Errorf("branch parents %s != snapshot parents %s", a, snapParents)
	}
	// Applying again is idempotent (same provenance, same commit).
	if o, e, code := h.Airlock(t, "apply", name); code != 0 {
		t.Errorf("second apply: %d %s %s", code, o, e)
	}
}
