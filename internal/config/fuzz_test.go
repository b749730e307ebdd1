package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// FuzzDecode: arbitrary bytes never panic; input that does not parse, or
// that breaks any rule the decoder promises, never comes back without an
// error diagnostic; every diagnostic points inside the file; the outputs
// built from a result (plan, JSON, text) never panic.
//
// The seed corpus is testdata/fuzz/FuzzDecode plus every fixture.
func FuzzDecode(f *testing.F) {
	for _, glob := range []string{"testdata/valid/*.hcl", "testdata/errors/*.hcl", "../../sandbox.hcl.example"} {
		files, _ := filepath.Glob(glob)
		for _, name := range files {
			if src, err := os.ReadFile(name); err == nil {
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, diags := Decode("/fuzz/sandbox.hcl", src, map[string]string{"v": "x"})
		for _, d := range diags {
			if d.Summary == "" {
				t.Errorf("diagnostic without summary: %#v", d)
			}
			if r := d.Subject; r != nil {
				if r.Start.Byte < 0 || r.Start.Byte > r.End.Byte || r.End.Byte > len(src) || r.Start.Line < 1 || r.Start.Column < 1 {
					t.Errorf("diagnostic %q has a range outside the file: %#v (len %d)", d.Summary, r, len(src))
				}
			}
		}
		var buf bytes.Buffer
		if err := WriteText(&buf, diags, src); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&buf, diags); err != nil {
			t.Fatal(err)
		}

		_, parseDiags := hclsyntax.ParseConfig(src, "x.hcl", hcl.InitialPos)
		if parseDiags.HasErrors() && !diags.HasErrors() {
			t.Fatalf("input does not parse but Decode reported no error")
		}
		if out, fd := Format("x.hcl", src); !fd.HasErrors() {
			if _, pd := hclsyntax.ParseConfig(out, "x.hcl", hcl.InitialPos); pd.HasErrors() {
				t.Fatalf("Format produced a file that does not parse: %s\n%q", pd, out)
			}
		}
		if diags.HasErrors() {
			return
		}
		if file == nil {
			t.Fatal("no errors but no file")
		}
		if problems := checkInvariants(file); len(problems) > 0 {
			t.Fatalf("decoded without errors but invalid:\n%s", strings.Join(problems, "\n"))
		}
		p := BuildPlan(file)
		if p.Text() == "" {
			t.Fatal("empty plan text")
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatal(err)
		}
	})
}

// checkInvariants re-checks a File decoded without errors against the
// rules, independently of where the decoder checks them.
func checkInvariants(f *File) []string {
	var bad []string
	fail := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	if len(f.Sandboxes) == 0 {
		fail("no sandboxes")
	}
	names := map[string]bool{}
	for _, sb := range f.Sandboxes {
		if !ValidSandboxName(sb.Name) || names[sb.Name] {
			fail("sandbox name %q", sb.Name)
		}
		names[sb.Name] = true
		if !oneOf(sb.Backend, Backends()) || sb.CPUs < 1 || sb.CPUs > MaxCPUs ||
			sb.Memory < MinMemory || sb.Memory > MaxMemory || sb.Disk < MinDisk || sb.Disk > MaxDisk ||
			!userRE().MatchString(sb.User) || !imageRE().MatchString(sb.Image) {
			fail("sandbox %q resources %+v", sb.Name, sb)
		}
		for k := range sb.Env {
			if !envNameRE().MatchString(k) || isReservedEnv(k) {
				fail("env %q", k)
			}
		}
		ws := sb.Workspace
		if !oneOf(ws.Mode, WorkspaceModes()) || !strings.HasPrefix(ws.Target, "/") || reservedGuestPath(ws.Target) != "" ||
			ws.Path == "" || strings.HasPrefix(ws.Path, "~") || !filepath.IsAbs(ws.AbsPath) {
			fail("workspace %+v", ws)
		}
		for _, g := range append(append([]string{}, ws.Hide...), ws.Protect...) {
			if CheckGlob(g) != nil {
				fail("glob %q", g)
			}
		}
		targets := map[string]bool{}
		mnames := map[string]bool{}
		for _, m := range sb.Mounts {
			if mnames[m.Name] || targets[m.Target] || m.Source == "" || strings.HasPrefix(m.Source, "~") ||
				!strings.HasPrefix(m.Target, "/") || reservedGuestPath(m.Target) != "" ||
				within(m.Target, ws.Target) || within(ws.Target, m.Target) || !filepath.IsAbs(m.AbsSource) {
				fail("mount %+v", m)
			}
			mnames[m.Name], targets[m.Target] = true, true
		}
		hostPorts := map[int]bool{}
		pnames := map[string]bool{}
		for _, p := range sb.Ports {
			if pnames[p.Name] || p.Guest < 1 || p.Guest > 65535 || p.Host < 0 || p.Host > 65535 || hostPorts[p.HostPort()] {
				fail("port %+v", p)
			}
			pnames[p.Name], hostPorts[p.HostPort()] = true, true
		}
		n := sb.Network
		if !oneOf(n.Preset, Presets) {
			fail("preset %q", n.Preset)
		}
		var allow, deny []HostPattern
		for _, a := range n.Allow {
			p, err := ParseHostPattern(a)
			if err != nil {
				fail("allow %q: %v", a, err)
			}
			allow = append(allow, p)
		}
		for _, d := range n.Deny {
			p, err := ParseHostPattern(d)
			if err != nil {
				fail("deny %q: %v", d, err)
			}
			for _, a := range allow {
				if p.Covers(a) {
					fail("deny %q covers allow %q", d, a.Raw)
				}
			}
			deny = append(deny, p)
		}
		cnames := map[string]bool{}
		cenv := map[string]bool{}
		for _, c := range sb.Credentials {
			if cnames[c.Name] || !SecretNameRE().MatchString(c.Secret) || len(c.Hosts) == 0 ||
				checkCredentialFormat(c.Format) != nil || (c.Header == "") == (c.Query == "") {
				fail("credential %+v", c)
			}
			cnames[c.Name] = true
			if c.Env != "" {
				if cenv[c.Env] || !envNameRE().MatchString(c.Env) || isReservedEnv(c.Env) {
					fail("credential env %q", c.Env)
				}
				if _, clash := sb.Env[c.Env]; clash {
					fail("credential env %q also in env", c.Env)
				}
				cenv[c.Env] = true
			}
			for _, h := range c.Hosts {
				hp, err := ParseHostPattern(h)
				if err != nil {
					fail("credential host %q: %v", h, err)
					continue
				}
				covered := n.Preset == "open"
				for _, a := range allow {
					covered = covered || a.Covers(hp)
				}
				for _, d := range deny {
					covered = covered && !d.Covers(hp)
				}
				if !covered {
					fail("credential host %q not allowed", h)
				}
			}
		}
		if s := sb.Signer; s != nil {
			keys := map[string]bool{}
			for _, k := range s.Keys {
				if keys[k.Name] || !SecretNameRE().MatchString(k.Ref) {
					fail("key %+v", k)
				}
				keys[k.Name] = true
			}
			pol := map[string]bool{}
			for _, p := range s.Policies {
				if pol[p.Name] || !keys[p.Key] || len(p.Operations) == 0 || !oneOf(p.Approval, Approvals) {
					fail("policy %+v", p)
				}
				pol[p.Name] = true
				for _, o := range p.Operations {
					if !oneOf(o, SignerOperations) {
						fail("operation %q", o)
					}
				}
				for _, a := range p.To {
					if checkAddress(a) != nil {
						fail("address %q", a)
					}
				}
				for _, c := range p.ChainIDs {
					if c < 1 {
						fail("chain id %d", c)
					}
				}
				for _, amt := range []string{p.MaxValue, p.DailyLimit} {
					if _, err := ParseAmount(amt); amt != "" && err != nil {
						fail("amount %q", amt)
					}
				}
				if _, _, err := ParseRate(p.Rate); p.Rate != "" && err != nil {
					fail("rate %q", p.Rate)
				}
			}
		}
	}
	return bad
}

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}
