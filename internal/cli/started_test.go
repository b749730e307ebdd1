package cli

import (
	"testing"
	"time"
)

// TestStartedAt: the process start is before now, by no more than this
// test binary has run (and to a clock tick of /proc's 10 ms).
func TestStartedAt(t *testing.T) {
	got := startedAt()
	if now := time.Now(); got.After(now) || now.Sub(got) > 10*time.Minute {
		t.Fatalf("startedAt %v, now %v", got, now)
	}
	if startedAt() != got {
		t.Fatal("startedAt changed between calls")
	}
}
