package agent

import (
	"fmt"
	"os"
	"time"
)

// step is one named piece of an init (namespace or microVM). An init that
// fails is over, so steps have no undo: the sandbox's teardown is the
// host's.
type step struct {
	name string
	fn   func() error
}

// runSteps runs steps in order; the first error names its step. done (if
// not nil) hears of each step that finished.
func runSteps(steps []step, done func(name string, took time.Duration)) error {
	for _, st := range steps {
		t0 := time.Now()
		if err := st.fn(); err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
		if done != nil {
			done(st.name, time.Since(t0))
		}
	}
	return nil
}

// traceStep prints step timings when AIRLOCK_INIT_TRACE is set.
func traceStep(name string, took time.Duration) {
	if os.Getenv("AIRLOCK_INIT_TRACE") != "" {
		fmt.Fprintf(os.Stderr, "init step %-24s %v\n", name, took)
	}
}
