package signer

import (
	"fmt"
	"sort"
	"time"
)

// A sandbox's refused requests cost it nothing to send, and each was one
// fdatasync'ed line of the audit log: 12,800 refusals (200 batches of 64
// garbage calls) took 13.6 s and wrote 3.7 MB, a host disk filled at about
// 1 GB an hour under constant syncs, by one sandbox. So refusals are
// written one by one at a rate per sandbox — a burst of refuseBurst, then
// one per refuseEvery — and past it only counted: the count goes into the
// next refusal entry written for that sandbox (Unlogged, with its own
// line), or a timer's refuseEvery after the first one counted, or at
// Close into a last one. Every other entry (allow, failed,
// network, open) is always written: those a sandbox cannot cause without
// the policy or a person saying yes.
const (
	refuseBurst = 100
	refuseEvery = 10 * time.Second
)

// refusalBucket is one sandbox's token bucket and its count of refusals
// not written one by one.
type refusalBucket struct {
	tokens   float64
	at       time.Time
	unlogged int
	flush    *time.Timer // writes the count refuseEvery after the first one counted
}

// refusal reports whether a refusal of sandbox is written now and, if so,
// how many were counted since the last one written. l.mu is held.
func (l *AuditLog) refusal(sandbox string) (write bool, unlogged int) {
	now := l.Clock()
	if l.refusals == nil {
		l.refusals = map[string]*refusalBucket{}
	}
	b, ok := l.refusals[sandbox]
	if !ok {
		b = &refusalBucket{tokens: refuseBurst, at: now}
		l.refusals[sandbox] = b
	}
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(refuseBurst, b.tokens+float64(d)/float64(refuseEvery))
		b.at = now
	}
	if b.tokens < 1 {
		b.unlogged++
		if b.unlogged == 1 {
			// The count reaches disk within refuseEvery even if the
			// sandbox sends nothing more (or the bridge dies later).
			if b.flush != nil {
				b.flush.Stop()
			}
			after := refuseEvery
			if l.refusalFlush > 0 {
				after = l.refusalFlush
			}
			b.flush = time.AfterFunc(after, func() { l.flushRefusal(sandbox) })
		}
		return false, 0
	}
	b.tokens--
	unlogged, b.unlogged = b.unlogged, 0
	return true, unlogged
}

// unloggedEntry is the line that accounts for n refusals not written one
// by one.
func unloggedEntry(sandbox string, n int) *AuditEntry {
	return &AuditEntry{Event: EventRefuse, Sandbox: sandbox, Decision: "deny", Unlogged: n,
		Reason: fmt.Sprintf("%d more refused requests from this sandbox, not logged one by one (over %d at once, then one per %v)", n, refuseBurst, refuseEvery)}
}

// flushRefusal writes sandbox's pending count, if any is left.
func (l *AuditLog) flushRefusal(sandbox string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.refusals[sandbox]; b != nil && b.unlogged > 0 && l.broken == nil {
		if l.appendLocked(unloggedEntry(sandbox, b.unlogged)) == nil {
			b.unlogged = 0
		}
	}
}

// flushRefusals writes the counts still pending, sandboxes in name order.
// l.mu is held.
func (l *AuditLog) flushRefusals() {
	names := make([]string, 0, len(l.refusals))
	for name, b := range l.refusals {
		if b.unlogged > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if l.appendLocked(unloggedEntry(name, l.refusals[name].unlogged)) == nil {
			l.refusals[name].unlogged = 0
		}
	}
}
