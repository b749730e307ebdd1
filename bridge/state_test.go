package bridge

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
)

var updateGolden = flag.Bool("update-state", false, "rewrite testdata/state/v*.json from this airlock")

// goldenState is the sandbox.json of a fixed sandbox, written by this airlock.
func goldenState(t *testing.T) *sandboxState {
	t.Helper()
	src := `sandbox "demo" {
  backend = "namespace"
  cpus    = 2
  workspace {
    path = "/srv/repo"
    mode = "clone"
    hide = ["/secrets/"]
  }
  port "web" {
    guest = 8080
    host  = 18080
  }
}
`
	f, diags := config.Decode("/srv/repo/sandbox.hcl", []byte(src), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	st := newSandboxState(f, f.Sandboxes[0], "namespace")
	st.Created = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st.Reviewed, st.Applied = strings.Repeat("a", 40), strings.Repeat("b", 40)
	return st
}

// Saved state is versioned: the file this airlock writes for version N
// equals testdata/state/vN.json, and every older golden file still loads.
// A change to the format changes the golden file: bump stateVersion (and
// keep reading the old one) when an old airlock's file would not load.
func TestStateGolden(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sandbox.json")
	if err := saveState(file, goldenState(t)); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	golden := filepath.Join("testdata", "state", "v1.json")
	if *updateGolden {
		os.WriteFile(golden, got, 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("sandbox.json changed from %s (a format change: see stateVersion; -update-state rewrites it):\n%s", golden, got)
	}
	vs, _ := filepath.Glob(filepath.Join("testdata", "state", "v*.json"))
	for _, v := range vs {
		st, err := loadState(v)
		if err != nil {
			t.Errorf("%s: %v", v, err)
			continue
		}
		if st.Name != "demo" || st.Backend != "namespace" || st.Mode != "clone" || st.Config.Workspace.AbsPath != "/srv/repo" ||
			len(st.Ports) != 1 || st.Ports[0].Host != 18080 || st.Config.CPUs != 2 {
			t.Errorf("%s loads as %+v", v, st)
		}
	}
}

// A damaged or foreign sandbox.json is refused with the reason in words.
func TestStateRefused(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "state", "v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ data, want string }{
		"truncated":   {string(good[:len(good)/2]), "is not valid JSON"},
		"empty":       {"", "is not valid JSON (0 bytes"},
		"newer":       {strings.Replace(string(good), `"version": 1`, `"version": 9`, 1), "state version 9, written by a newer airlock"},
		"unversioned": {strings.Replace(string(good), `"version": 1,`, ``, 1), "has no state version"},
		"no config":   {`{"version": 1, "name": "demo"}`, "has no approved configuration"},
		"bad name":    {`{"version": 1, "name": "../x", "config": {}}`, "names no valid sandbox"},
	} {
		f := filepath.Join(t.TempDir(), "sandbox.json")
		os.WriteFile(f, []byte(c.data), 0o600)
		if _, err := loadState(f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}
