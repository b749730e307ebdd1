package signer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"sort"
	"sync"
	"time"
)

// Approver is who decides when policy says a human must: it returns nil to
// allow, a *Refusal otherwise.
type Approver interface {
	Approve(ctx context.Context, op *Op) error
}

// ApprovalRequest is what a human sees: only what the signer decoded.
type ApprovalRequest struct {
	ID      string    `json:"id"`
	Digest  string    `json:"digest"` // the decision binds to this request digest
	Policy  string    `json:"policy"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
	Decoded Decoded   `json:"decoded"`
	// Message is a personal_sign message whole (Decoded.Message is its
	// first bytes); nil for other operations.
	Message *WholeText `json:"message_whole,omitempty"`
}

// Queue is the interactive Approver: pending requests wait for Decide (from
// `airlock approve|deny` or the editor), and are denied at Timeout.
type Queue struct {
	Timeout    time.Duration // default 2m
	MaxPending int           // per sandbox; default 3
	// Cooldown refuses without prompting a request whose digest was denied
	// within this window (default 1m).
	Cooldown time.Duration
	Clock    func() time.Time
	Rand     io.Reader
	// Notify is called (without locks held) when a request is added.
	Notify func(ApprovalRequest)

	mu      sync.Mutex // guards pending and denied
	pending map[string]*pendingApproval
	denied  map[string]time.Time // digest → when denied; pruned past Cooldown
}

type pendingApproval struct {
	req     ApprovalRequest
	done    chan struct{}
	allowed bool
	waiters int
}

// ErrNoSuchApproval is returned by Decide for an unknown or finished ID.
var ErrNoSuchApproval = errors.New("no such pending approval")

// ErrDigestMismatch is returned by Decide when the caller names a digest
// other than the pending request's.
var ErrDigestMismatch = errors.New("approval digest does not match the pending request")

func (q *Queue) now() time.Time {
	if q.Clock != nil {
		return q.Clock()
	}
	return time.Now()
}

// Approve implements Approver.
func (q *Queue) Approve(ctx context.Context, op *Op) error {
	timeout, maxPending, cooldown := q.limits()
	p, fresh, err := q.enqueue(op, timeout, maxPending, cooldown)
	if err != nil {
		return err
	}
	if fresh && q.Notify != nil {
		q.Notify(p.req)
	}
	err = p.wait(ctx, timeout)
	q.leave(p, op.Digest, err)
	return err
}

// limits are the queue's settings with their defaults: how long a prompt
// waits, how many a sandbox may have open, how long a denial is remembered.
func (q *Queue) limits() (timeout time.Duration, maxPending int, cooldown time.Duration) {
	timeout, maxPending, cooldown = q.Timeout, q.MaxPending, q.Cooldown
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	if maxPending == 0 {
		maxPending = 3
	}
	if cooldown == 0 {
		cooldown = time.Minute
	}
	return timeout, maxPending, cooldown
}

// enqueue finds the pending prompt for op (fresh is false: an identical
// request already waiting shares it) or opens a new one, refusing a request
// denied within the cooldown or a sandbox at its limit of open prompts.
func (q *Queue) enqueue(op *Op, timeout time.Duration, maxPending int, cooldown time.Duration) (p *pendingApproval, fresh bool, err error) {
	now := q.now()
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.pending == nil {
		q.pending, q.denied = map[string]*pendingApproval{}, map[string]time.Time{}
	}
	// Forget denials past the cooldown: a sandbox sending ever new requests
	// and hanging up must not grow the map for the bridge's lifetime.
	for d, t := range q.denied {
		if now.Sub(t) >= cooldown {
			delete(q.denied, d)
		}
	}
	if t, ok := q.denied[op.Digest]; ok && now.Sub(t) < cooldown {
		return nil, false, ErrRecentlyDenied
	}
	n := 0
	for _, x := range q.pending {
		if x.req.Digest == op.Digest {
			p = x
		}
		if x.req.Decoded.Sandbox == op.Sandbox {
			n++
		}
	}
	fresh = p == nil
	if fresh {
		if n >= maxPending {
			return nil, false, ErrThrottled
		}
		var id [6]byte
		r := q.Rand
		if r == nil {
			r = rand.Reader
		}
		if _, err := io.ReadFull(r, id[:]); err != nil {
			return nil, false, err
		}
		p = &pendingApproval{done: make(chan struct{}), req: ApprovalRequest{
			ID: hex.EncodeToString(id[:]), Digest: op.Digest, Policy: policyName(op),
			Created: now, Expires: now.Add(timeout), Decoded: op.Decoded, Message: op.whole}}
		q.pending[p.req.ID] = p
	}
	p.waiters++
	return p, fresh, nil
}

// wait blocks until the prompt is decided, times out or the client goes.
func (p *pendingApproval) wait(ctx context.Context, timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.done:
		if !p.allowed {
			return ErrDenied
		}
		return nil
	case <-timer.C:
		return ErrApprovalTimeout
	case <-ctx.Done():
		// The client hung up (or the bridge is stopping): nobody
		// decided, and the audit log says so. The cooldown still applies,
		// so hanging up and asking again cannot flood the human.
		return ErrClientGone
	}
}

// leave drops one waiter, remembers a refusal for the cooldown, and
// removes the prompt when nobody waits on it any more.
func (q *Queue) leave(p *pendingApproval, digest string, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	p.waiters--
	if err != nil {
		q.denied[digest] = q.now()
	}
	if cur, ok := q.pending[p.req.ID]; ok && cur == p && p.waiters == 0 {
		delete(q.pending, p.req.ID)
	}
}

// Pending lists waiting requests, oldest first.
func (q *Queue) Pending() []ApprovalRequest {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]ApprovalRequest, 0, len(q.pending))
	for _, p := range q.pending {
		out = append(out, p.req)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out
}

// Decide answers a pending request. digest, when not empty, must match the
// request's digest (a decision is bound to what was shown).
func (q *Queue) Decide(id, digest string, allow bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	p, ok := q.pending[id]
	if !ok {
		return ErrNoSuchApproval
	}
	if digest != "" && digest != p.req.Digest {
		return ErrDigestMismatch
	}
	delete(q.pending, id)
	p.allowed = allow
	if !allow {
		q.denied[p.req.Digest] = q.now()
	}
	close(p.done)
	return nil
}
