package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/egress"
	"github.com/airlock-sandbox/airlock/internal/signer"
)

// Approval of irreversible network actions: a request a network.approve
// rule matches is held by the egress proxy and put in the signer's approval
// queue (one queue: `airlock approvals`, `airlock approve|deny ID` and the
// editor's modal show both kinds), as operation "network". No decision
// within the host's approve_timeout is a denial, and so is a bridge whose
// approval queue cannot run (no signer audit log).

const networkOperation = "network"

// heldRequests maps an approval digest to the held request it stands for,
// so the approval's wire form can show host, path and size. The signer
// feature owns it, with the approval queue.
type heldRequests struct {
	mu       sync.Mutex // guards byDigest
	byDigest map[string]*heldEntry
}

type heldEntry struct {
	h       egress.Held
	waiters int
}

// lookup finds a held request; a nil *heldRequests holds none.
func (hr *heldRequests) lookup(digest string) (egress.Held, bool) {
	if hr == nil {
		return egress.Held{}, false
	}
	hr.mu.Lock()
	defer hr.mu.Unlock()
	e, ok := hr.byDigest[digest]
	if !ok {
		return egress.Held{}, false
	}
	return e.h, true
}

// hold records h under digest until the returned release is called (by
// every request waiting under that digest).
func (hr *heldRequests) hold(digest string, h egress.Held) (release func()) {
	hr.mu.Lock()
	if hr.byDigest == nil {
		hr.byDigest = map[string]*heldEntry{}
	}
	e, ok := hr.byDigest[digest]
	if !ok {
		e = &heldEntry{h: h}
		hr.byDigest[digest] = e
	}
	e.waiters++
	hr.mu.Unlock()
	return func() {
		hr.mu.Lock()
		e.waiters--
		if e.waiters == 0 {
			delete(hr.byDigest, digest)
		}
		hr.mu.Unlock()
	}
}

// heldDigest binds a decision to exactly what was shown.
func heldDigest(h egress.Held) string {
	b, _ := json.Marshal(h)
	sum := sha256.Sum256(append([]byte("airlock network approval\x00"), b...))
	return hex.EncodeToString(sum[:])
}

// networkApprover puts held requests in s's approval queue.
func (s *signerFeature) networkApprover(env Env, timeout time.Duration) egress.Approver {
	return func(ctx context.Context, h egress.Held) error {
		st := s.state(env)
		if st.err != nil {
			return errors.New("the approval queue is unavailable (signer audit log)")
		}
		digest := heldDigest(h)
		defer s.held.hold(digest, h)()
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		op := &signer.Op{Decoded: signer.Decoded{Method: h.Method, Operation: networkOperation, Sandbox: h.Sandbox}, Digest: digest}
		err := st.queue.Approve(ctx, op)
		decision := "approve"
		switch {
		case err == nil:
		case errors.Is(err, signer.ErrApprovalTimeout) || errors.Is(ctx.Err(), context.DeadlineExceeded):
			decision, err = "timeout", egress.ErrHeldTimeout
		default:
			decision = "deny"
		}
		env.Logger().Info("network approval", "sandbox", h.Sandbox, "method", h.Method, "host", h.Host,
			"path", h.Path, "rule", h.Rule, "decision", decision)
		return err
	}
}

func networkApprovalWire(a *protocol.Approval, h egress.Held) {
	size := h.Size
	a.Host, a.Path, a.Size, a.Rule = net.JoinHostPort(h.Host, strconv.Itoa(h.Port)), h.Path, &size, h.Rule
}

func networkSummary(a protocol.Approval, held *heldRequests) string {
	scheme := "http"
	if h, ok := held.lookup(a.Digest); ok && h.TLS {
		scheme = "https"
	}
	size := "size unknown (chunked)"
	if a.Size != nil && *a.Size >= 0 {
		size = fmt.Sprintf("%d bytes", *a.Size)
	}
	return signer.TerminalSafe(fmt.Sprintf("%s: %s %s://%s%s (%s) held by %q", a.Sandbox, a.Method, scheme, a.Host, a.Path, size, a.Rule))
}
