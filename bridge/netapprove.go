package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

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
//
// One decision, one request: every held request gets its own prompt, with
// a digest no other request shares, so an approval releases exactly the
// request it was shown for (the proxy sends it once). Byte-identical
// requests of one sandbox waiting at the same time are counted on each
// prompt (Identical). A request whose identity was refused (denied, timed
// out or abandoned) is refused without a prompt for netCooldown in the same
// sandbox, so hanging up and asking again cannot flood the person. Every
// decision is written to the signer's audit log (event "network") before
// the request goes anywhere.

const networkOperation = "network"

// netCooldown is how long a refused identity is refused without a prompt.
const netCooldown = time.Minute

// heldRequests maps an approval digest to the held request it stands for,
// so the approval's wire form can show it. The signer feature owns it, with
// the approval queue.
type heldRequests struct {
	mu       sync.Mutex // guards everything below
	seq      uint64
	byDigest map[string]egress.Held
	refused  map[string]time.Time // identity → when last refused
}

// lookup finds a held request and how many held requests share its
// identity; a nil *heldRequests holds none.
func (hr *heldRequests) lookup(digest string) (h egress.Held, identical int, ok bool) {
	if hr == nil {
		return egress.Held{}, 0, false
	}
	hr.mu.Lock()
	defer hr.mu.Unlock()
	h, ok = hr.byDigest[digest]
	if !ok {
		return egress.Held{}, 0, false
	}
	id := h.Identity()
	for _, x := range hr.byDigest {
		if x.Sandbox == h.Sandbox && x.Identity() == id {
			identical++
		}
	}
	return h, identical, true
}

// errRecentlyRefused refuses a request whose identity was refused within
// netCooldown.
var errRecentlyRefused = errors.New("the same request was refused less than a minute ago; not asking again yet")

// hold records h under a digest of its own until release is called. It
// refuses an identity refused within the cooldown.
func (hr *heldRequests) hold(h egress.Held, now time.Time) (digest string, release func(refused bool), err error) {
	id := h.Sandbox + "\x00" + h.Identity() // one sandbox's refusal never silences another's prompt
	hr.mu.Lock()
	defer hr.mu.Unlock()
	if hr.byDigest == nil {
		hr.byDigest, hr.refused = map[string]egress.Held{}, map[string]time.Time{}
	}
	for k, t := range hr.refused {
		if now.Sub(t) >= netCooldown {
			delete(hr.refused, k)
		}
	}
	if t, ok := hr.refused[id]; ok && now.Sub(t) < netCooldown {
		return "", nil, errRecentlyRefused
	}
	hr.seq++
	sum := sha256.Sum256(fmt.Appendf(nil, "airlock network approval v2\x00%s\x00%d", id, hr.seq))
	digest = hex.EncodeToString(sum[:])
	hr.byDigest[digest] = h
	return digest, func(refused bool) {
		hr.mu.Lock()
		defer hr.mu.Unlock()
		delete(hr.byDigest, digest)
		if refused {
			hr.refused[id] = time.Now()
		}
	}, nil
}

// heldRequestText is a held request's identity on one line (audit log).
func heldRequestText(h egress.Held) string {
	m := h.Method
	for _, o := range h.Overrides {
		m += "+" + o
	}
	return fmt.Sprintf("%s %s body=%d sha256=%s", m, signer.Escape(h.URL()), h.Size, h.BodySHA256)
}

// networkApprover puts held requests in s's approval queue.
func (s *signerFeature) networkApprover(env Env, timeout time.Duration) egress.Approver {
	return func(ctx context.Context, h egress.Held) error {
		st := s.state(env)
		if st.err != nil {
			return errors.New("the approval queue is unavailable (signer audit log)")
		}
		audit := func(decision, approval, reason string) error {
			return st.svc.Audit.Append(&signer.AuditEntry{Event: signer.EventNetwork, Sandbox: h.Sandbox, Method: h.Method,
				Policy: h.Rule, Decision: decision, Approval: approval, Reason: reason, Request: heldRequestText(h)})
		}
		digest, release, err := s.held.hold(h, time.Now())
		if err != nil {
			_ = audit("refuse", "", "recently refused")
			return err
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		op := &signer.Op{Decoded: signer.Decoded{Method: h.Method, Operation: networkOperation, Sandbox: h.Sandbox}, Digest: digest}
		err = st.queue.Approve(ctx, op)
		release(err != nil)
		decision, approval, reason := "approve", "user", ""
		switch {
		case err == nil:
		case errors.Is(err, signer.ErrApprovalTimeout) || errors.Is(ctx.Err(), context.DeadlineExceeded):
			decision, approval, reason, err = "refuse", "", "timeout", egress.ErrHeldTimeout
		case errors.Is(err, signer.ErrDenied):
			decision, reason = "refuse", "denied"
		default:
			decision, approval, reason = "refuse", "", err.Error()
		}
		if aerr := audit(decision, approval, reason); aerr != nil && err == nil {
			env.Logger().Error("network approval: audit log", "sandbox", h.Sandbox, "err", aerr)
			err = errors.New("the approval could not be written to the audit log")
		}
		env.Logger().Info("network approval", "sandbox", h.Sandbox, "method", h.Method, "url", h.URL(),
			"size", h.Size, "sha256", h.BodySHA256, "rule", h.Rule, "decision", decision, "reason", reason)
		return err
	}
}

// networkApprovalWire fills in the held request's fields.
func networkApprovalWire(a *protocol.Approval, h egress.Held, identical int) {
	size := h.Size
	a.Host, a.Path, a.Size, a.Rule = net.JoinHostPort(h.Host, strconv.Itoa(h.Port)), h.Path, &size, h.Rule
	a.URL, a.BodySHA256, a.Identical, a.Overrides = signer.Escape(h.URL()), h.BodySHA256, identical, h.Overrides
	if utf8.Valid(h.BodyHead) || (len(h.BodyHead) >= utf8.UTFMax && utf8.Valid(h.BodyHead[:len(h.BodyHead)-utf8.UTFMax])) {
		a.BodyHead = signer.Escape(string(h.BodyHead))
	} else {
		a.BodyHeadHex = hex.EncodeToString(h.BodyHead[:min(len(h.BodyHead), 256)])
	}
}

func networkSummary(a protocol.Approval) string {
	s := fmt.Sprintf("%s: %s", a.Sandbox, a.Method)
	for _, o := range a.Overrides {
		s += " (names " + o + ")"
	}
	size := "no body"
	if a.Size != nil && *a.Size > 0 {
		size = fmt.Sprintf("body %d bytes sha256 %.16s…", *a.Size, a.BodySHA256)
	}
	s += " " + signer.Quote(a.URL, 160, 0) + " (" + size + ")"
	if a.Identical > 1 {
		s += fmt.Sprintf(" [%d identical requests waiting, one approval each]", a.Identical)
	}
	return signer.TerminalSafe(s + fmt.Sprintf(" held by %q", a.Rule))
}
