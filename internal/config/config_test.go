package config

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func mustDecode(t *testing.T, src string, vars map[string]string) *File {
	t.Helper()
	f, diags := Decode("/proj/sandbox.hcl", []byte(src), vars)
	for _, d := range diags {
		t.Errorf("unexpected diagnostic: %s", diagString(d))
	}
	if f == nil {
		t.Fatal("nil file")
	}
	return f
}

func TestHideMergedWithDefaults(t *testing.T) {
	f := mustDecode(t, `sandbox "h" {
  workspace {
    hide    = ["*.pem", "secrets/"]
    protect = ["Makefile"]
  }
}`, nil)
	ws := f.Sandboxes[0].Workspace
	want := append(append([]string{}, DefaultHide()...), "secrets/")
	if !reflect.DeepEqual(ws.Hide, want) {
		t.Errorf("hide = %v, want %v", ws.Hide, want)
	}
	if !reflect.DeepEqual(ws.Protect, append(append([]string{}, DefaultProtect()...), "Makefile")) {
		t.Errorf("protect = %v", ws.Protect)
	}
	for rel, hidden := range map[string]bool{
		".env": true, "app/.env.local": true, "certs/server.pem": true, "secrets/a/b.txt": true,
		"id_ed25519": true, "src/main.go": false, "environment.go": false, "x/secrets": true,
	} {
		if ws.Hidden(rel) != hidden {
			t.Errorf("Hidden(%q) = %v, want %v", rel, !hidden, hidden)
		}
	}
	if !ws.Protected(".git/hooks/pre-commit") || ws.Protected("src/Makefile.go") {
		t.Error("Protected")
	}
}

func TestVariables(t *testing.T) {
	src := `variable "mem" {
  default = "4GiB"
}
variable "img" {}
sandbox "v" {
  memory = var.mem
  image  = var.img
}`
	f := mustDecode(t, src, map[string]string{"img": "ubuntu-noble"})
	if sb := f.Sandboxes[0]; sb.Memory != 4<<30 || sb.Image != "ubuntu-noble" {
		t.Errorf("got memory %d image %q", sb.Memory, sb.Image)
	}
	f = mustDecode(t, src, map[string]string{"img": "x", "mem": "1GiB"})
	if f.Sandboxes[0].Memory != 1<<30 || !f.Variables[0].Set {
		t.Errorf("-var did not override the default: %+v", f.Variables[0])
	}

	_, diags := Decode("s.hcl", []byte(src), map[string]string{"img": "x", "imgg": "y"})
	if len(diags) != 1 || diags[0].Summary != "Undeclared variable" || diags[0].Subject != nil ||
		!strings.Contains(diags[0].Detail, `Did you mean "img"?`) {
		t.Errorf("undeclared -var: %v", diags)
	}
	_, diags = Decode("s.hcl", []byte(src), nil)
	if len(diags) != 1 || diags[0].Summary != "Missing variable value" || diags[0].Subject.Start.Line != 4 {
		t.Errorf("missing value: %v", diags)
	}
}

func TestSuggestions(t *testing.T) {
	_, diags := Decode("s.hcl", []byte(`sandbox "a" {
  memroy = "1GiB"
  backend = "namespaces"
  workspace {
    mode = "directt"
  }
}`), nil)
	var details []string
	for _, d := range diags {
		details = append(details, d.Detail)
	}
	all := strings.Join(details, "\n")
	for _, want := range []string{`Did you mean "memory"?`, `Did you mean "namespace"?`, `Did you mean "direct"?`, `"auto", "microvm", "namespace" or "kubernetes"`} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in:\n%s", want, all)
		}
	}
}

func TestHostPatterns(t *testing.T) {
	cases := []struct {
		pattern, host string
		want          bool
	}{
		{"example.com", "example.com", true},
		{"example.com", "EXAMPLE.com.", true},
		{"example.com", "example.com:443", true},
		{"example.com", "www.example.com", false},
		{"*.example.com", "www.example.com", true},
		{"*.example.com", "a.b.example.com", false},
		{"*.example.com", "example.com", false},
		{"**.example.com", "a.b.example.com", true},
		{"**.example.com", "example.com", false},
		{"**.example.com", "badexample.com", false},
		{"example.com:443", "example.com:443", true},
		{"example.com:443", "example.com:80", false},
		{"example.com:443", "example.com", false},
		{"10.0.0.0/8", "10.1.2.3", true},
		{"10.0.0.0/8", "10.1.2.3:22", true},
		{"10.0.0.0/8", "11.1.2.3", false},
		{"192.168.1.1", "192.168.1.1", true},
		{"[::1]:8080", "[::1]:8080", true},
		{"::1", "[::1]:22", true},
		{"fc00::/7", "fd00::1", true},
		{"*", "example.com", false},
		{"example.com", "*.example.com", false},
	}
	for _, c := range cases {
		if got := MatchHost(c.pattern, c.host); got != c.want {
			t.Errorf("MatchHost(%q, %q) = %v, want %v", c.pattern, c.host, got, c.want)
		}
	}
	bad := []string{"", "*", "**", "*.com", "https://x.com", "a..b", "-a.com", "a.*.com", "x.com:0", "x.com:65536", "1.2.3.0/40", "fe80::1%eth0", "[1.2.3.4]:80", "a b", "x.com:http", "[::1", "::1:80:x", "10.0.0.0/8:443", "a_b.example.com", "host.123", "1.2.3", "x.com:080"}
	for _, b := range bad {
		if _, err := ParseHostPattern(b); err == nil {
			t.Errorf("ParseHostPattern(%q) accepted", b)
		}
	}
}

func TestCovers(t *testing.T) {
	cases := []struct {
		outer, inner string
		want         bool
	}{
		{"**.example.com", "*.example.com", true},
		{"**.example.com", "**.a.example.com", true},
		{"*.example.com", "**.example.com", false},
		{"*.example.com", "*.example.com", true},
		{"example.com", "example.com:443", true},
		{"example.com:443", "example.com", false},
		{"10.0.0.0/8", "10.1.0.0/16", true},
		{"10.1.0.0/16", "10.0.0.0/8", false},
		{"10.0.0.0/8", "example.com", false},
	}
	for _, c := range cases {
		o, err1 := ParseHostPattern(c.outer)
		i, err2 := ParseHostPattern(c.inner)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if got := o.Covers(i); got != c.want {
			t.Errorf("%q covers %q = %v, want %v", c.outer, c.inner, got, c.want)
		}
	}
}

func TestGlobs(t *testing.T) {
	cases := []struct {
		pattern, rel string
		want         bool
	}{
		{"*.pem", "a/b/c.pem", true},
		{"config/*.json", "config/a.json", true},
		{"config/*.json", "x/config/a.json", false},
		{"**/config/*.json", "x/y/config/a.json", true},
		{"**/config/*.json", "config/a.json", true},
		{"secrets/", "secrets/deep/file", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b/c", true},
		{"a/**/b", "ab", false},
		{"[", "[", false},
	}
	for _, c := range cases {
		if got := MatchGlob(c.pattern, c.rel); got != c.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", c.pattern, c.rel, got, c.want)
		}
	}
	// Many "**" segments must stay fast (polynomial).
	p := strings.Repeat("**/", 40) + "z"
	rel := strings.Repeat("d/", 60) + "y"
	if MatchGlob(p, rel) {
		t.Error("unexpected match")
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"2GiB": 2 << 30, "512MiB": 512 << 20, "1.5G": 3 << 29, "10GB": 10e9, "100B": 100, "1 TiB": 1 << 40} {
		if got, err := ParseSize(s); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"2048", "2 gigs", "", "-1GiB", "1e3MiB", "99999999999999999999TiB"} {
		if _, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) accepted", s)
		}
	}
}

func TestParseAmountAndRate(t *testing.T) {
	for s, want := range map[string]string{"1000": "1000", "20 gwei": "20000000000", "0.1 ether": "100000000000000000", "1.5ETH": "1500000000000000000"} {
		got, err := ParseAmount(s)
		if err != nil || got.String() != want {
			t.Errorf("ParseAmount(%q) = %v, %v; want %s", s, got, err, want)
		}
	}
	for _, s := range []string{"0.1", "1 wie", "1e18", ""} {
		if _, err := ParseAmount(s); err == nil {
			t.Errorf("ParseAmount(%q) accepted", s)
		}
	}
	if n, per, err := ParseRate("10/minute"); err != nil || n != 10 || per.Minutes() != 1 {
		t.Errorf("ParseRate: %d %v %v", n, per, err)
	}
	if _, _, err := ParseRate("0/minute"); err == nil {
		t.Error("ParseRate accepted a zero count")
	}
}

func TestChecksumAddress(t *testing.T) {
	// EIP-55 test vectors.
	for _, a := range []string{
		"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
		"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
		"0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
	} {
		if got := ChecksumAddress(strings.ToLower(a)); got != a {
			t.Errorf("ChecksumAddress = %s, want %s", got, a)
		}
	}
}

func TestPlan(t *testing.T) {
	f := mustDecode(t, `sandbox "p" {
  pids = 512
  workspace {
    mode = "direct"
  }
  mount "rw" {
    source    = "/srv/data"
    target    = "/mnt/data"
    read_only = false
  }
  port "web" {
    guest = 80
    host  = 8080
  }
  network {
    allow = ["10.0.0.0/8", "api.example.com", "localhost:5432"]
  }
  credential "c" {
    secret = "tok"
    hosts  = ["api.example.com"]
    env    = "TOKEN"
  }
}`, nil)
	p := BuildPlan(f)
	text := p.Text()
	for _, want := range []string{
		f.SHA256, `sandbox "p"`, "READ-WRITE", "/srv/data -> /mnt/data", "127.0.0.1:8080 on this host -> port 80",
		`preset "balanced"`, "also allowed: 10.0.0.0/8, api.example.com, localhost:5432",
		`your secret "tok", sent only to api.example.com`, "$TOKEN",
		`allow "10.0.0.0/8" reaches a private`, `allow "localhost:5432" reaches a private`, "direct mode",
		`mount "rw": shares /srv/data from outside the directory of this file`,
		"512 processes", "disk limit covers the sandbox's own home, /var and /tmp, not this folder",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("plan text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, `allow "api.example.com" reaches`) {
		t.Error("public host flagged as private")
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back Plan
	if err := json.Unmarshal(b, &back); err != nil || back.SHA256 != f.SHA256 || len(back.Sandboxes[0].Warnings) != 5 {
		t.Errorf("plan JSON round trip: %v %s", err, b)
	}
}

func TestJSONDiagnostics(t *testing.T) {
	_, diags := Decode("x.hcl", []byte("sandbox \"a\" {\n  cpus = 0\n}\n"), map[string]string{"nope": "1"})
	var buf bytes.Buffer
	if err := WriteJSON(&buf, diags); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %s", buf.String())
	}
	if got[0]["summary"] != "Undeclared variable" || got[0]["start"] != nil || got[0]["filename"] != "" {
		t.Errorf("placeless diagnostic: %v", got[0])
	}
	start := got[1]["start"].(map[string]any)
	end := got[1]["end"].(map[string]any)
	if got[1]["severity"] != "error" || got[1]["summary"] != "Value out of range" || got[1]["filename"] != "x.hcl" ||
		start["line"] != 2.0 || start["column"] != 10.0 || start["byte"] != 23.0 || end["column"] != 11.0 {
		t.Errorf("diagnostic: %v", got[1])
	}
	buf.Reset()
	WriteJSON(&buf, nil)
	if strings.TrimSpace(buf.String()) != "[]" {
		t.Errorf("clean file JSON = %q, want []", buf.String())
	}
}

func TestWriteText(t *testing.T) {
	src := []byte("sandbox \"a\" {\n\tbackend = \"kvm\"\n}\n")
	_, diags := Decode("dir/s.hcl", src, nil)
	var buf bytes.Buffer
	WriteText(&buf, diags, src)
	want := "dir/s.hcl:2,12: Invalid backend\n" +
		"    2 |  backend = \"kvm\"\n" +
		"      |            ^^^^^\n" +
		"  backend must be one of \"auto\", \"microvm\", \"namespace\" or \"kubernetes\"; got \"kvm\".\n\n"
	if buf.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestFormat(t *testing.T) {
	out, diags := Format("f.hcl", []byte("sandbox \"a\" {\ncpus=2\n  backend   =   \"auto\"\n}\n"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := "sandbox \"a\" {\n  cpus    = 2\n  backend = \"auto\"\n}\n"
	if string(out) != want {
		t.Errorf("got %q want %q", out, want)
	}
	if _, diags := Format("f.hcl", []byte("sandbox {")); !diags.HasErrors() {
		t.Error("formatted a file that does not parse")
	}
}

func TestFunctionsArePureAndListed(t *testing.T) {
	fs := Functions()
	var names []string
	for n := range fs {
		names = append(names, n)
	}
	sort.Strings(names)
	if !reflect.DeepEqual(names, FunctionNames) {
		t.Errorf("Functions() = %v, FunctionNames = %v", names, FunctionNames)
	}
	for _, forbidden := range []string{"file", "env", "templatefile", "fileexists", "timestamp", "uuid", "abspath", "pathexpand", "exec"} {
		if _, ok := fs[forbidden]; ok {
			t.Errorf("function %q must not exist: the file is untrusted", forbidden)
		}
	}
	// Results are bounded.
	_, diags := Decode("s.hcl", []byte(`sandbox "a" {
  image = replace(replace(replace(replace(replace("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
}`), nil)
	if !hasSummary(diags, "Error in function call") {
		t.Errorf("unbounded replace was not stopped: %v", diags)
	}
}

func hasSummary(diags hcl.Diagnostics, s string) bool {
	for _, d := range diags {
		if d.Summary == s {
			return true
		}
	}
	return false
}

func TestPidsAttribute(t *testing.T) {
	for _, c := range []struct {
		src  string
		want string // diagnostic summary, "" = none
	}{
		{`pids = 64`, ""},
		{`pids = 4194304`, ""},
		{`pids = 63`, "Value out of range"},
		{`pids = 4194305`, "Value out of range"},
		{`pids = "many"`, "Incorrect attribute value type"},
		{`pids = 1.5`, ""}, // checked below: not an integer
	} {
		f, diags := Decode("/proj/sandbox.hcl", []byte("sandbox \"x\" {\n  "+c.src+"\n}\n"), nil)
		var got string
		if diags.HasErrors() {
			got = diags[0].Summary
		}
		if c.src == `pids = 1.5` {
			if !diags.HasErrors() {
				t.Errorf("%s: accepted", c.src)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%s: diagnostic %q, want %q (%v)", c.src, got, c.want, diags)
		}
		if c.want == "" && f.Sandboxes[0].Pids == DefaultPids && c.src != "pids = 4096" {
			t.Errorf("%s: default kept", c.src)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	_, diags := Load(filepath.Join(t.TempDir(), "missing.hcl"), nil)
	if len(diags) != 1 || diags[0].Summary != "Cannot read configuration file" || !strings.Contains(diags[0].Detail, "no such file") {
		t.Errorf("got %v", diags)
	}
}
