package bridge

import (
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/egress"
)

// The refusal cooldown is per sandbox: one sandbox's refused request does
// not silence another sandbox's identical prompt (outside attack
// egress/14), and identical requests are counted within one sandbox.
func TestNetCooldownPerSandbox(t *testing.T) {
	var hr heldRequests
	now := time.Now()
	h := egress.Held{Sandbox: "a", Method: "POST", Host: "svc.test", Port: 443, Path: "/x", TLS: true}
	_, release, err := hr.hold(h, now)
	if err != nil {
		t.Fatal(err)
	}
	release(true)
	if _, _, err := hr.hold(h, now); err != errRecentlyRefused {
		t.Fatalf("same sandbox within the cooldown: %v", err)
	}
	hb := h
	hb.Sandbox = "b"
	db, releaseB, err := hr.hold(hb, now)
	if err != nil {
		t.Fatalf("another sandbox's identical request: %v", err)
	}
	ha := h
	ha.Sandbox = "c"
	_, releaseC, _ := hr.hold(ha, now)
	if _, n, ok := hr.lookup(db); !ok || n != 1 {
		t.Fatalf("identical count across sandboxes: %d %v", n, ok)
	}
	releaseB(false)
	releaseC(false)
	if _, _, err := hr.hold(h, time.Now().Add(netCooldown+time.Second)); err != nil {
		t.Fatalf("after the cooldown: %v", err)
	}
}
