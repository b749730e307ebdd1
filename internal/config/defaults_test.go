package config

import (
	"reflect"
	"slices"
	"testing"
)

// TestDefaults is the one list of sandbox.hcl's defaults: each row is the
// value Decode gives an attribute the file leaves out, the documented
// literal, and (where there is one) the exported constant other packages
// use. Nothing outside internal/config defaults a config value: a new
// default is a new row here.
func TestDefaults(t *testing.T) {
	f := mustDecode(t, `sandbox "d" {
  mount "m" {
    source = "data"
    target = "/mnt/data"
  }
  port "p" {
    guest = 8080
  }
  credential "c" {
    secret = "s"
    hosts  = ["api.example.com"]
  }
  network {
    allow = ["api.example.com"]
  }
  signer {
    key "k" {
      ref = "r"
    }
    policy "p" {
      key        = "k"
      operations = ["sign"]
    }
  }
}`, nil)
	sb := f.Sandboxes[0]
	ws, m, p, c := sb.Workspace, sb.Mounts[0], sb.Ports[0], sb.Credentials[0]
	for _, row := range []struct {
		name          string
		got, want, at any // at: the exported constant or accessor (nil: none)
	}{
		{"backend", sb.Backend, "auto", DefaultBackend},
		{"cpus", sb.CPUs, 2, DefaultCPUs},
		{"memory", sb.Memory, int64(2 << 30), int64(DefaultMemory)},
		{"disk", sb.Disk, int64(10 << 30), int64(DefaultDisk)},
		{"pids", sb.Pids, 4096, DefaultPids},
		{"image", sb.Image, "debian-bookworm", DefaultImage},
		{"user", sb.User, "agent", DefaultUser},
		{"env", sb.Env, map[string]string{}, nil},
		{"template", sb.Template, "", nil},
		{"docker", sb.Docker, false, nil},
		{"workspace.path", ws.Path, ".", DefaultWorkspacePath},
		{"workspace.abs_path", ws.AbsPath, "/proj", nil},
		{"workspace.mode", ws.Mode, "clone", DefaultWorkspaceMode},
		{"workspace.target", ws.Target, "/workspace", DefaultWorkspaceTarget},
		{"workspace.hide", ws.Hide, []string{".env", ".env.*", "*.pem", "*.key", "id_*"}, DefaultHide()},
		{"workspace.protect", ws.Protect, []string{".git/hooks", ".git/config"}, DefaultProtect()},
		{"mount.read_only", m.ReadOnly, true, nil},
		{"mount.abs_source", m.AbsSource, "/proj/data", nil},
		{"port.bind", p.Bind, "127.0.0.1", DefaultBind},
		{"port.host (HostPort: the guest port)", p.HostPort(), 8080, nil},
		{"network.preset", sb.Network.Preset, "balanced", DefaultPreset},
		{"credential.header", c.Header, "Authorization", DefaultCredentialHeader},
		{"credential.format", c.Format, "%s", DefaultCredentialFormat},
		{"credential.query", c.Query, "", nil},
		{"policy.approval", sb.Signer.Policies[0].Approval, "always", DefaultApproval},
		{"skills (block absent)", sb.Skills == nil, true, nil},
	} {
		if !reflect.DeepEqual(row.got, row.want) {
			t.Errorf("%s: decoded %#v, want %#v", row.name, row.got, row.want)
		}
		if row.at != nil && !reflect.DeepEqual(row.at, row.want) {
			t.Errorf("%s: exported default %#v, want %#v", row.name, row.at, row.want)
		}
	}
	if len(f.SHA256) != 64 || f.Dir != "/proj" {
		t.Errorf("file: %q %q", f.SHA256, f.Dir)
	}
}

// TestDefaultListsAreCopies: an importer that changes what DefaultHide,
// DefaultProtect, Backends or WorkspaceModes returned changes neither the
// next call's answer nor what Decode merges into a workspace.
func TestDefaultListsAreCopies(t *testing.T) {
	for name, get := range map[string]func() []string{"DefaultHide": DefaultHide, "DefaultProtect": DefaultProtect,
		"Backends": Backends, "WorkspaceModes": WorkspaceModes} {
		want := get()
		got := get()
		got[0] = "changed"
		_ = append(got[:1], "appended")
		if !slices.Equal(get(), want) {
			t.Errorf("%s after an importer changed its result: %q, want %q", name, get(), want)
		}
	}
	hide, protect := DefaultHide(), DefaultProtect()
	hide[0], protect[0] = "changed", "changed"
	ws := mustDecode(t, `sandbox "d" {}`, nil).Sandboxes[0].Workspace
	if !slices.Equal(ws.Hide, DefaultHide()) || !slices.Equal(ws.Protect, DefaultProtect()) {
		t.Errorf("decoded workspace after importers changed their copies: hide %q protect %q", ws.Hide, ws.Protect)
	}
}
