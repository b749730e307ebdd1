package bridge

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/steptime"
)

// The features are one explicit list in New, in the order their hooks
// run, and each daemon owns its instances (two daemons share no MCP
// gateways, proxies or review locks).
func TestFeaturesInHookOrder(t *testing.T) {
	d, _ := newTestDaemon(t)
	var names []string
	for _, f := range d.features {
		names = append(names, f.Name)
	}
	if got, want := strings.Join(names, " "), "agents egress mcp provenance review signer skills templates"; got != want {
		t.Errorf("features %q, want %q", got, want)
	}
	d2, _ := newTestDaemon(t)
	if d.mcp == d2.mcp || d.egress == d2.egress || d.review == d2.review || d.signer == d2.signer {
		t.Error("two daemons share a feature instance")
	}
}

// TestFeaturesStartedOrder: Started hooks run in feature order, one at a
// time, except StartedAside ones, which run alongside (this one waits for
// a later ordered hook to begin); each is a step of the timer; the first
// failure in feature order is the error.
func TestFeaturesStartedOrder(t *testing.T) {
	d, _ := newTestDaemon(t)
	var mu sync.Mutex
	var order []string
	note := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	secondBegan := make(chan struct{})
	hook := func(name string, fn func() error) func(context.Context, Env, SandboxRef) error {
		return func(context.Context, Env, SandboxRef) error {
			note(name)
			return fn()
		}
	}
	d.features = []*Feature{
		{Name: "aside", StartedAside: true, Started: hook("aside", func() error {
			select {
			case <-secondBegan:
				return nil
			case <-time.After(10 * time.Second):
				return errors.New("ran alone: the ordered hooks waited for it")
			}
		})},
		{Name: "first", Started: hook("first", func() error { return nil })},
		{Name: "second", Started: hook("second", func() error { close(secondBegan); return errors.New("second failed") })},
		{Name: "third", Started: hook("third", func() error { return nil })},
	}
	tm := steptime.New()
	err := d.featuresStarted(context.Background(), tm, &sandbox{d: d, name: "x"})
	if err == nil || !strings.Contains(err.Error(), "second failed") {
		t.Fatalf("error %v, want second's", err)
	}
	var ordered []string
	for _, s := range order {
		if s != "aside" {
			ordered = append(ordered, s)
		}
	}
	if got := strings.Join(ordered, " "); got != "first second" || len(order) != 3 {
		t.Errorf("hooks ran as %q: want first then second, aside alongside, nothing after the failure", order)
	}
	var steps []string
	for _, s := range tm.Steps() {
		steps = append(steps, s.Name)
	}
	if len(steps) != 3 {
		t.Errorf("steps %q, want aside, first and second", steps)
	}
}
