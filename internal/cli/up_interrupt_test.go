package cli

import (
	"testing"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

// A cancelled up names its sandbox from the bridge's lists, never from the
// file read again (outside round startpath/05).
func TestPickTarget(t *testing.T) {
	const file = "/w/sandbox.hcl"
	sb := func(name, path string) protocol.Sandbox { return protocol.Sandbox{Name: name, ConfigPath: path} }
	up := protocol.UpParams{ConfigPath: file}
	named := protocol.UpParams{ConfigPath: file, Name: "b"}
	for _, c := range []struct {
		what        string
		p           protocol.UpParams
		before, now []protocol.Sandbox
		name        string
		existed     bool
	}{
		{"new sandbox, being made", up, nil, []protocol.Sandbox{sb("a", file)}, "a", false},
		{"new sandbox, already cleaned up", up, nil, nil, "", false},
		{"existing sandbox of this file", up, []protocol.Sandbox{sb("a", file), sb("x", "/other.hcl")}, []protocol.Sandbox{sb("a", file), sb("x", "/other.hcl")}, "a", true},
		{"the file now names another one, being made", up, []protocol.Sandbox{sb("a", file)}, []protocol.Sandbox{sb("a", file), sb("c", file)}, "c", false},
		{"other files' sandboxes only", up, []protocol.Sandbox{sb("x", "/other.hcl")}, []protocol.Sandbox{sb("x", "/other.hcl")}, "", false},
		{"two of this file before", up, []protocol.Sandbox{sb("a", file), sb("b", file)}, nil, "", false},
		{"--name, existing", named, []protocol.Sandbox{sb("b", file)}, nil, "b", true},
		{"--name, new", named, []protocol.Sandbox{sb("a", file)}, nil, "b", false},
	} {
		name, existed := pickTarget(c.p, c.before, c.now)
		if name != c.name || existed != c.existed {
			t.Errorf("%s: %q existed=%v, want %q existed=%v", c.what, name, existed, c.name, c.existed)
		}
	}
}
