package vm

import (
	"fmt"
	"strings"
)

// CheckComplete returns an ErrInvalidSpec error naming every field of s
// that was left unset, or nil. The bridge builds each Spec from the
// sandbox's resolved configuration (internal/config applies the defaults,
// once), so a backend checks a Spec with CheckComplete and never fills
// one in.
func (s *Spec) CheckComplete() error {
	var missing []string
	need := func(ok bool, field string) {
		if !ok {
			missing = append(missing, field)
		}
	}
	need(s.ID != "", "ID")
	need(s.CPUs > 0, "CPUs")
	need(s.MemoryBytes > 0, "MemoryBytes")
	need(s.DiskBytes > 0, "DiskBytes")
	need(s.Pids > 0, "Pids")
	need(s.Image != "", "Image")
	need(s.User != "", "User")
	switch s.Workspace.Mode {
	case ModeDirect, ModeClone, ModeMountless:
	default:
		missing = append(missing, fmt.Sprintf("Workspace.Mode (%q)", s.Workspace.Mode))
	}
	need(s.Workspace.Target != "", "Workspace.Target")
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w: sandbox %q: %s not set (a Spec comes complete from the sandbox's resolved config)",
		ErrInvalidSpec, s.ID, strings.Join(missing, ", "))
}
