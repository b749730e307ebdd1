package templates

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

type entry struct {
	name, body, link string
	typ              byte
	mode             int64
}

func makeTar(t testing.TB, es []entry) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range es {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: e.mode, Linkname: e.link}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if e.typ == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, e.body)
	}
	tw.Close()
	return buf.Bytes()
}

func readTar(t testing.TB, b []byte) map[string]string {
	out := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		out[h.Name] = string(body) + h.Linkname
	}
}

func TestFilterKeepsInstallsDropsSecrets(t *testing.T) {
	in := makeTar(t, []entry{
		{name: "./", typ: tar.TypeDir, mode: 0o755},
		{name: "./.local/bin/claude", typ: tar.TypeSymlink, link: "../lib/node_modules/@anthropic-ai/claude-code/cli.js"},
		{name: "./.local/lib/node_modules/x/index.js", typ: tar.TypeReg, body: "code", mode: 0o4755},
		{name: "./.claude/settings.json", typ: tar.TypeReg, body: "{}"},
		{name: "./.claude/.credentials.json", typ: tar.TypeReg, body: "oauth-token"},
		{name: "./.codex/auth.json", typ: tar.TypeReg, body: "token"},
		{name: "./.ssh/", typ: tar.TypeDir},
		{name: "./.ssh/id_ed25519", typ: tar.TypeReg, body: "key"},
		{name: "./.cache/go-build/x", typ: tar.TypeReg, body: "cache"},
		{name: "./.npm/_cacache/y", typ: tar.TypeReg, body: "cache"},
		{name: "./proj/.env", typ: tar.TypeReg, body: "SECRET=1"},
		{name: "./proj/server.pem", typ: tar.TypeReg, body: "pem"},
		{name: "./proj/notes.txt", typ: tar.TypeReg, body: "ok"},
		{name: "./creds/", typ: tar.TypeDir},
		{name: "./creds/a", typ: tar.TypeReg, body: "a"},
		{name: "./fifo", typ: tar.TypeFifo},
		{name: "./hard", typ: tar.TypeLink, link: "proj/notes.txt"},
		{name: "./hard-to-secret", typ: tar.TypeLink, link: "proj/.env"},
		{name: "./hard-out", typ: tar.TypeLink, link: "../../etc/shadow"},
		{name: "./.netrc", typ: tar.TypeReg, body: "machine x password y"},
	})
	var out bytes.Buffer
	st, err := Filter(bytes.NewReader(in), &out, Rules{Hide: []string{"creds/"}})
	if err != nil {
		t.Fatal(err)
	}
	got := readTar(t, out.Bytes())
	want := map[string]string{
		".local/bin/claude":                  "../lib/node_modules/@anthropic-ai/claude-code/cli.js",
		".local/lib/node_modules/x/index.js": "code",
		".claude/settings.json":              "{}",
		"proj/notes.txt":                     "ok",
		"hard":                               "proj/notes.txt",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kept %v\nwant %v", got, want)
	}
	ex := append([]string(nil), st.Excluded...)
	sort.Strings(ex)
	for _, p := range []string{".claude/.credentials.json", ".codex/auth.json", ".ssh", ".netrc", "proj/.env", "proj/server.pem", "creds", "fifo", "hard-to-secret", "hard-out"} {
		if i := sort.SearchStrings(ex, p); i == len(ex) || ex[i] != p {
			t.Errorf("%s not listed as excluded: %v", p, ex)
		}
	}
	tr := tar.NewReader(bytes.NewReader(out.Bytes()))
	for h, err := tr.Next(); err == nil; h, err = tr.Next() {
		if h.Mode&0o6000 != 0 {
			t.Errorf("%s keeps set-id bits: %o", h.Name, h.Mode)
		}
	}
}

func TestFilterRefusesEscapes(t *testing.T) {
	for _, name := range []string{"/etc/passwd", "../x", "a/../../x"} {
		in := makeTar(t, []entry{{name: name, typ: tar.TypeReg, body: "x"}})
		if _, err := Filter(bytes.NewReader(in), io.Discard, Rules{}); err == nil || !strings.Contains(err.Error(), "leaves the home") {
			t.Errorf("%q: err = %v", name, err)
		}
	}
	if _, err := Filter(strings.NewReader("not a tar archive at all, just text padding the block out"), io.Discard, Rules{}); err == nil {
		t.Error("garbage accepted")
	}
}

func TestStoreRoundTrip(t *testing.T) {
	s := Open(t.TempDir())
	if _, err := s.Save("Bad Name", bytes.NewReader(nil), Rules{}, Meta{}, SaveOptions{}); err == nil {
		t.Fatal("bad name accepted")
	}
	in := makeTar(t, []entry{{name: "a.txt", typ: tar.TypeReg, body: "v1"}})
	if _, err := s.Save("base", bytes.NewReader(in), Rules{}, Meta{Sandbox: "x"}, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	in = makeTar(t, []entry{{name: "a.txt", typ: tar.TypeReg, body: "v2"}})
	m, err := s.Save("base", bytes.NewReader(in), Rules{}, Meta{Sandbox: "y"}, SaveOptions{})
	if err != nil || m.Entries != 1 || m.Bytes != 2 {
		t.Fatalf("resave: %+v %v", m, err)
	}
	f, err := s.Archive("base")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if got := readTar(t, b); got["a.txt"] != "v2" {
		t.Errorf("archive = %v", got)
	}
	// A failed save leaves the previous template intact.
	if _, err := s.Save("base", strings.NewReader("garbage garbage"), Rules{}, Meta{}, SaveOptions{}); err == nil {
		t.Fatal("garbage saved")
	}
	if l, _ := s.List(); len(l) != 1 || l[0].Sandbox != "y" {
		t.Errorf("list = %+v", l)
	}
	if d, err := s.Disk("base"); d != "" || err != nil {
		t.Errorf("a home-only template has disk %q (%v)", d, err)
	}
	// A disk step that fails leaves the previous template intact; one that
	// works lands beside the home.
	in = makeTar(t, []entry{{name: "a.txt", typ: tar.TypeReg, body: "v3"}})
	if _, err := s.Save("base", bytes.NewReader(in), Rules{}, Meta{Sandbox: "z"}, SaveOptions{Disk: func(string) error { return errors.New("no disk") }}); err == nil {
		t.Fatal("failed disk step saved")
	}
	if m, _ := s.Get("base"); m.Sandbox != "y" || m.DiskBytes != 0 {
		t.Errorf("after a failed disk step: %+v", m)
	}
	m, err = s.Save("base", bytes.NewReader(in), Rules{}, Meta{Sandbox: "z"}, SaveOptions{Disk: func(dst string) error { return os.WriteFile(dst, []byte("qcow"), 0o600) }})
	if err != nil || m.DiskBytes != 4 {
		t.Fatalf("save with disk: %+v %v", m, err)
	}
	if d, err := s.Disk("base"); err != nil || filepath.Base(d) != "root.qcow2" {
		t.Errorf("disk = %q (%v)", d, err)
	} else if b, _ := os.ReadFile(d); string(b) != "qcow" {
		t.Errorf("disk holds %q", b)
	}
	if err := s.Remove("base"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("base"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after rm: %v", err)
	}
	if err := s.Remove("base"); !errors.Is(err, ErrNotFound) {
		t.Errorf("rm twice: %v", err)
	}
}

// FuzzFilter: any byte stream is filtered without panicking, and what comes
// out is a valid archive of clean relative names of kept types.
func FuzzFilter(f *testing.F) {
	f.Add(makeTar(f, []entry{{name: "./a", typ: tar.TypeReg, body: "x"}, {name: "b/", typ: tar.TypeDir}, {name: "l", typ: tar.TypeSymlink, link: "/etc"}}))
	f.Add(makeTar(f, []entry{{name: "../x", typ: tar.TypeReg}}))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		if _, err := Filter(bytes.NewReader(in), &out, Rules{Hide: []string{"s/"}}); err != nil {
			return
		}
		tr := tar.NewReader(&out)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatalf("filtered output unreadable: %v", err)
			}
			n := strings.TrimSuffix(h.Name, "/")
			if c, ok := cleanName(n); !ok || c != n || n == "" || !keptType(h.Typeflag) || (Rules{Hide: []string{"s/"}}).excluded(n) != "" {
				t.Fatalf("bad entry kept: %q type %c", h.Name, h.Typeflag)
			}
		}
	})
}
