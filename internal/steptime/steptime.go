// Package steptime times the named steps of one operation (a sandbox's
// `up` on the bridge, a backend's Create or Start) so that where the time
// went can be read in one line: "plan=2ms create=31ms create.disk=12ms ...".
//
// One Timer holds the steps of one operation in the order they began. A
// caller hands it down through a context (With, From); a callee records its
// own steps under a prefix (Sub), so a backend's steps appear inside the
// bridge's "create" or "start" step. Every method works on a nil *Timer
// (From of a context without one): steps still run, untimed by anyone
// else, and Sub starts a fresh Timer.
//
// AIRLOCK_VM_DEBUG set in the environment makes Debug print a Timer's
// steps to stderr (the bridge's stderr, or a test's).
package steptime

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Step is one finished (or still running: Dur 0) step.
type Step struct {
	Name string
	Dur  time.Duration
}

// Timer records steps; it is safe for concurrent use (steps may overlap).
type Timer struct {
	l      *list
	prefix string // "create." for a Sub("create") view
}

type list struct {
	mu    sync.Mutex
	steps []Step
}

// New returns an empty Timer.
func New() *Timer { return &Timer{l: &list{}} }

// Sub returns a view of t whose steps are recorded as "name.STEP". On a
// nil Timer it returns a new Timer whose steps carry no prefix.
func (t *Timer) Sub(name string) *Timer {
	if t == nil {
		return New()
	}
	return &Timer{l: t.l, prefix: t.prefix + name + "."}
}

// Begin starts step name and returns the function that ends it (call it
// once; later calls are ignored).
func (t *Timer) Begin(name string) (end func()) {
	if t == nil {
		return func() {}
	}
	t0 := time.Now()
	t.l.mu.Lock()
	i := len(t.l.steps)
	t.l.steps = append(t.l.steps, Step{Name: t.prefix + name})
	t.l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			d := time.Since(t0)
			t.l.mu.Lock()
			t.l.steps[i].Dur = d
			t.l.mu.Unlock()
		})
	}
}

// Run runs fn as step name and returns its error (unwrapped: naming the
// step in an error is the caller's choice).
func (t *Timer) Run(name string, fn func() error) error {
	end := t.Begin(name)
	defer end()
	return fn()
}

// Steps returns a copy of the steps recorded so far through t's view (all
// of them for a Timer from New; those under its prefix for a Sub view), in
// the order they began.
func (t *Timer) Steps() []Step {
	if t == nil {
		return nil
	}
	t.l.mu.Lock()
	defer t.l.mu.Unlock()
	var out []Step
	for _, s := range t.l.steps {
		if strings.HasPrefix(s.Name, t.prefix) {
			out = append(out, s)
		}
	}
	return out
}

// Get returns the duration of the first step called name (its full name,
// prefixes included), or 0.
func (t *Timer) Get(name string) time.Duration {
	for _, s := range t.Steps() {
		if s.Name == name {
			return s.Dur
		}
	}
	return 0
}

// String is "name=12ms name2=340µs ..." (durations rounded to 0.1 ms
// below 10 ms, else to the millisecond; a space in a name is written "_").
func (t *Timer) String() string {
	var b strings.Builder
	for i, s := range t.Steps() {
		if i > 0 {
			b.WriteByte(' ')
		}
		r := time.Millisecond
		if s.Dur < 10*time.Millisecond {
			r = 100 * time.Microsecond
		}
		fmt.Fprintf(&b, "%s=%v", strings.ReplaceAll(s.Name, " ", "_"), s.Dur.Round(r))
	}
	return b.String()
}

// debugOut is where Debug writes (a test may replace it).
var debugOut io.Writer = os.Stderr

// Debug prints "what: STEPS" when AIRLOCK_VM_DEBUG is set.
func (t *Timer) Debug(what string) {
	if os.Getenv("AIRLOCK_VM_DEBUG") != "" && t != nil {
		fmt.Fprintf(debugOut, "%s: %s\n", what, t)
	}
}

type ctxKey struct{}

// With returns ctx carrying t.
func With(ctx context.Context, t *Timer) context.Context {
	return context.WithValue(ctx, ctxKey{}, t)
}

// From returns the Timer ctx carries, or nil.
func From(ctx context.Context) *Timer {
	t, _ := ctx.Value(ctxKey{}).(*Timer)
	return t
}

// Of returns the Timer ctx carries, or a new one: a callee times its steps
// either way and prints them with Debug.
func Of(ctx context.Context) *Timer {
	if t := From(ctx); t != nil {
		return t
	}
	return New()
}
