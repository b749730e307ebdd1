package guestspec

import "fmt"

// AgentGuestPath is where the airlock-agent binary sits inside a sandbox.
const AgentGuestPath = "/run/airlock/bin/airlock-agent"

// SeccompArchs are the GOARCH values the namespace init has a seccomp
// filter for. The host backend refuses to start a sandbox elsewhere, and the
// agent package's tests check its tables against this list.
var SeccompArchs = []string{"amd64", "arm64"}

// SeccompSupported says whether the namespace init can install its filter
// on goarch.
func SeccompSupported(goarch string) error {
	for _, a := range SeccompArchs {
		if a == goarch {
			return nil
		}
	}
	return fmt.Errorf("no seccomp filter for %s (only amd64 and arm64): the namespace backend would run without one", goarch)
}
