//go:build linux

package namespace

import (
	"slices"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
	"github.com/airlock-sandbox/airlock/vm"
)

// TestMountTable: the host trees each kind of sandbox mounts, in order,
// and how (read-only, a file, idmapped), from the spec and the layout
// alone.
func TestMountTable(t *testing.T) {
	const dir, data = "/s", "/s/data"
	agent := "/bin/airlock-agent"
	base := []string{"/s/etc>/etc", "/s/data/home>" + guestHome, "/s/data/var>/var"}
	bin := agent + ">" + guestspec.AgentGuestPath + " ro file"
	for _, tc := range []struct {
		name    string
		ws      vm.Workspace
		mounts  []vm.Mount
		wsSrc   string
		diskTmp bool
		want    []string // src>target [ro] [file] [idmap] [workspace]
	}{
		{name: "mountless, no disk image", ws: vm.Workspace{Mode: vm.ModeMountless, Target: "/workspace"}, wsSrc: "/s/data/workspace",
			want: append(slices.Clone(base), bin, "/s/data/workspace>/workspace workspace")},
		{name: "clone on a disk image: /tmp too", ws: vm.Workspace{Mode: vm.ModeClone, Target: "/src"}, wsSrc: "/s/data/workspace", diskTmp: true,
			want: append(slices.Clone(base), "/s/data/tmp>/tmp", bin, "/s/data/workspace>/src workspace")},
		{name: "direct: the gate's view, idmapped", ws: vm.Workspace{Mode: vm.ModeDirect, Target: "/workspace"}, wsSrc: "/s/workspace-gate", diskTmp: true,
			want: append(slices.Clone(base), "/s/data/tmp>/tmp", bin, "/s/workspace-gate>/workspace idmap workspace")},
		{name: "shares after the workspace: read-write ones idmapped", ws: vm.Workspace{Mode: vm.ModeClone, Target: "/workspace"}, wsSrc: "/s/data/workspace",
			mounts: []vm.Mount{{Name: "cache", Source: "/h/cache", Target: "/cache"}, {Name: "ref", Source: "/h/ref", Target: "/ref", ReadOnly: true}},
			want:   append(slices.Clone(base), bin, "/s/data/workspace>/workspace workspace", "/h/cache>/cache idmap", "/h/ref>/ref ro")},
	} {
		spec := &vm.Spec{AgentBinary: agent, Workspace: tc.ws, Mounts: tc.mounts}
		var got []string
		for _, m := range mountTable(spec, dir, data, tc.wsSrc, tc.diskTmp) {
			s := m.src + ">" + m.target
			for _, f := range []struct {
				on   bool
				word string
			}{{m.ro, "ro"}, {m.file, "file"}, {m.idmap, "idmap"}, {m.workspace, "workspace"}} {
				if f.on {
					s += " " + f.word
				}
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got  %q\n want %q", tc.name, got, tc.want)
		}
	}
}
