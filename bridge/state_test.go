package bridge

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
)

var updateGolden = flag.Bool("update-state", false, "write testdata/state/vN.json and schema-vN.txt for a new stateVersion N (never rewrites an existing one)")

// goldenState is the sandbox.json of a fixed sandbox, written by this airlock.
func goldenState(t *testing.T) *sandboxState {
	t.Helper()
	src := `sandbox "demo" {
  backend = "namespace"
  cpus    = 2
  env     = { EDITOR = "vi" }
  workspace {
    path = "/srv/repo"
    mode = "clone"
    hide = ["/secrets/"]
  }
  mount "data" {
    source = "/srv/data"
    target = "/data"
  }
  port "web" {
    guest = 8080
    host  = 18080
  }
  network {
    allow   = ["api.github.com"]
    approve = ["api.github.com POST /repos/*"]
  }
  credential "gh" {
    secret = "gh-token"
    hosts  = ["api.github.com"]
    env    = "GH_TOKEN"
  }
  skills {
    writable = true
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

// stateSchema lists every key sandbox.json can hold, with its JSON type,
// walking sandboxState and what it holds (the approved config.Sandbox
// included) by reflection: a field added, renamed or removed anywhere
// below changes it, whether or not the fixture sets that field.
func stateSchema() string {
	var lines []string
	var walk func(path string, t reflect.Type, seen map[reflect.Type]bool)
	walk = func(path string, t reflect.Type, seen map[reflect.Type]bool) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case t == reflect.TypeOf(time.Time{}):
			lines = append(lines, path+" time")
		case t.Kind() == reflect.Struct:
			if seen[t] {
				lines = append(lines, path+" (recursive "+t.Name()+")")
				return
			}
			seen[t] = true
			defer delete(seen, t)
			for i := range t.NumField() {
				f := t.Field(i)
				if !f.IsExported() {
					continue
				}
				name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" && opts == "" {
					continue
				}
				if name == "" {
					name = f.Name
				}
				if opts != "" {
					name += "," + opts
				}
				walk(path+"."+name, f.Type, seen)
			}
		case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
			walk(path+"[]", t.Elem(), seen)
		case t.Kind() == reflect.Map:
			walk(path+"{"+t.Key().Kind().String()+"}", t.Elem(), seen)
		default:
			lines = append(lines, path+" "+t.Kind().String())
		}
	}
	walk("", reflect.TypeOf(sandboxState{}), map[reflect.Type]bool{})
	return strings.Join(lines, "\n") + "\n"
}

// sandbox.json is pinned: the file this airlock writes for a fixed sandbox
// is testdata/state/vN.json and its schema is schema-vN.txt (N =
// stateVersion), byte for byte. Neither is ever rewritten: a change of
// shape (a field of sandboxState or of internal/config's Sandbox renamed,
// added or removed) means a new version with a migration from the old one.
func TestStateGolden(t *testing.T) {
	golden := func(name string, got []byte) {
		t.Helper()
		file := filepath.Join("testdata", "state", name)
		if _, err := os.Stat(file); os.IsNotExist(err) && *updateGolden {
			os.WriteFile(file, got, 0o644)
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (a new stateVersion? -update-state writes its golden files)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("sandbox.json's shape changed from %s, so an old home would no longer restore as it was saved: "+
				"bump stateVersion and add a migration from version %d to stateMigrations, then run with -update-state "+
				"to write the new version's golden files (keep the old ones). This airlock writes:\n%s", file, stateVersion, got)
		}
	}
	golden(fmt.Sprintf("schema-v%d.txt", stateVersion), []byte(stateSchema()))
	file := filepath.Join(t.TempDir(), "sandbox.json")
	if err := saveState(file, goldenState(t)); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	golden(fmt.Sprintf("v%d.json", stateVersion), got)
	if len(stateMigrations) != stateVersion-1 {
		t.Errorf("%d migrations for state version %d: each version after 1 needs the one from the version before", len(stateMigrations), stateVersion)
	}
}

// Migration: every older golden file (the same sandbox, saved by an older
// airlock) loads, and saved again is byte for byte what this airlock
// writes for that sandbox, so an old home restores as it was approved.
func TestStateMigrations(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "state", fmt.Sprintf("v%d.json", stateVersion)))
	if err != nil {
		t.Fatal(err)
	}
	for v := 1; v <= stateVersion; v++ {
		old := filepath.Join("testdata", "state", fmt.Sprintf("v%d.json", v))
		st, err := loadState(old)
		if err != nil {
			t.Errorf("%s: %v", old, err)
			continue
		}
		file := filepath.Join(t.TempDir(), "sandbox.json")
		if err := saveState(file, st); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(file); !bytes.Equal(got, want) {
			t.Errorf("%s migrated and saved differs from v%d.json:\n%s", old, stateVersion, got)
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
		"odd version": {strings.Replace(string(good), `"version": 1`, `"version": "1"`, 1), "state version that is not a number"},
		"no config":   {`{"version": 1, "name": "demo"}`, "has no approved configuration"},
		"bad name":    {`{"version": 1, "name": "../x", "config": {}}`, "names no valid sandbox"},
		"not object":  {`[1]`, "does not decode"},
	} {
		f := filepath.Join(t.TempDir(), "sandbox.json")
		os.WriteFile(f, []byte(c.data), 0o600)
		if _, err := loadState(f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}
