//go:build !amd64 && !arm64

package wsgate

import (
	"errors"
	"unsafe"
)

// installSeccomp has no table for this architecture: the gate refuses to
// serve rather than run without its filter.
func installSeccomp(me int) error {
	return errors.New("workspace gate: no seccomp filter for this architecture")
}

func unsafePointer[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }
