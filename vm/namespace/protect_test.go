//go:build linux

package namespace

import (
	"fmt"
	"slices"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
)

// TestProtectMounts: every directory above a protected path is pinned
// once, before any path is made read-only; top-level paths pin nothing.
func TestProtectMounts(t *testing.T) {
	for _, tc := range []struct {
		protect []string
		want    []string // kind:target
	}{
		{nil, nil},
		{[]string{".envrc"}, []string{"ro:/w/.envrc"}},
		{[]string{".vscode/settings.json", ".vscode/tasks.json"}, []string{"pin:/w/.vscode", "ro:/w/.vscode/settings.json", "ro:/w/.vscode/tasks.json"}},
		{[]string{"a/b/c", "a/d"}, []string{"pin:/w/a/b", "pin:/w/a", "ro:/w/a/b/c", "ro:/w/a/d"}},
	} {
		var got []string
		for _, m := range protectMounts("/w", tc.protect) {
			kind := map[string]string{guestspec.MountPin: "pin", guestspec.MountRebindRO: "ro"}[m.Kind]
			got = append(got, fmt.Sprintf("%s:%s", kind, m.Target))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("protectMounts(%q) = %q, want %q", tc.protect, got, tc.want)
		}
	}
}
