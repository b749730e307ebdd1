package signer

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// policy is a compiled `policy "NAME" { ... }` block. Matching is
// first-match in file order on (key, operation); the checks after that each
// refuse with their own reason.
type policy struct {
	name      string
	key       string
	ops       map[string]bool
	chains    map[string]bool // decimal chain ids; empty = none allowed for eth ops
	chainList []*big.Int
	to        map[common.Address]bool // empty = any recipient
	maxValue  *big.Int                // nil = no per-tx cap
	maxFee    *big.Int                // nil = fees not capped
	daily     *big.Int                // nil = no daily budget
	rateN     int                     // 0 = no rate limit
	ratePer   time.Duration
	approval  string // always | above_limit | never
	issuer    string
	audience  []string
	claims    map[string]bool
	maxLife   time.Duration
	purposes  map[string]bool
	tokens    map[common.Address]*tokenLimit // token budgets (token_budget.go)
	create    bool                           // allow_create: contract creation under token budgets
}

// Operation names a policy may list.
var knownOps = map[string]bool{
	"eth_signTransaction": true, "personal_sign": true, "eth_signTypedData_v4": true,
	"jwt": true, "hmac": true, "sign": true, "git": true,
}

func compilePolicy(p *config.Policy) (*policy, error) {
	cp := &policy{name: p.Name, key: p.Key, ops: map[string]bool{}, chains: map[string]bool{},
		to: map[common.Address]bool{}, claims: map[string]bool{}, purposes: map[string]bool{},
		issuer: p.Issuer, audience: p.Audience, approval: p.Approval}
	if cp.key == "" {
		return nil, errors.New("no key")
	}
	for _, o := range p.Operations {
		if !knownOps[o] {
			return nil, fmt.Errorf("unknown operation %q", o)
		}
		cp.ops[o] = true
	}
	for _, c := range p.ChainIDs {
		if c <= 0 {
			return nil, fmt.Errorf("invalid chain id %d", c)
		}
		b := big.NewInt(c)
		cp.chains[b.String()] = true
		cp.chainList = append(cp.chainList, b)
	}
	for _, a := range p.To {
		if !common.IsHexAddress(a) {
			return nil, fmt.Errorf("invalid address %q in to", a)
		}
		if a != strings.ToLower(a) && common.HexToAddress(a).Hex() != a {
			return nil, fmt.Errorf("address %q has a bad EIP-55 checksum", a)
		}
		cp.to[common.HexToAddress(a)] = true
	}
	var err error
	if p.MaxValue != "" {
		if cp.maxValue, err = ParseAmount(p.MaxValue); err != nil {
			return nil, fmt.Errorf("max_value: %w", err)
		}
	}
	if p.MaxFee != "" {
		if cp.maxFee, err = ParseAmount(p.MaxFee); err != nil {
			return nil, fmt.Errorf("max_fee: %w", err)
		}
	}
	if p.DailyLimit != "" {
		if cp.daily, err = ParseAmount(p.DailyLimit); err != nil {
			return nil, fmt.Errorf("daily_limit: %w", err)
		}
	}
	if p.Rate != "" {
		if cp.rateN, cp.ratePer, err = parseRate(p.Rate); err != nil {
			return nil, fmt.Errorf("rate: %w", err)
		}
	}
	switch cp.approval {
	case "":
		cp.approval = "always"
	case "always", "above_limit", "never":
	default:
		return nil, fmt.Errorf("approval must be always, above_limit or never, not %q", cp.approval)
	}
	for _, c := range p.Claims {
		cp.claims[c] = true
	}
	for _, pu := range p.Purposes {
		cp.purposes[pu] = true
	}
	cp.create = p.AllowCreate
	if cp.tokens, err = compileTokens(p); err != nil {
		return nil, err
	}
	cp.maxLife = 15 * time.Minute
	if p.MaxLifetime != "" {
		if cp.maxLife, err = time.ParseDuration(p.MaxLifetime); err != nil || cp.maxLife <= 0 {
			return nil, fmt.Errorf("max_lifetime %q is not a positive duration", p.MaxLifetime)
		}
	}
	return cp, nil
}

var amountRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]+)?)\s*(wei|gwei|ether|eth)?\s*$`)
})

// ParseAmount reads "12345" (wei), "30 gwei", "0.1 ether".
func ParseAmount(s string) (*big.Int, error) {
	m := amountRE().FindStringSubmatch(strings.ToLower(s))
	if m == nil {
		return nil, fmt.Errorf("%q is not an amount (e.g. \"0.1 ether\", \"30 gwei\", \"1000\" wei)", s)
	}
	decimals := 0
	switch m[2] {
	case "gwei":
		decimals = 9
	case "ether", "eth":
		decimals = 18
	}
	whole, frac, _ := strings.Cut(m[1], ".")
	if len(frac) > decimals {
		return nil, fmt.Errorf("%q has more decimals than its unit allows", s)
	}
	v, _ := new(big.Int).SetString(whole+frac+strings.Repeat("0", decimals-len(frac)), 10)
	return v, nil
}

func parseRate(s string) (int, time.Duration, error) {
	n, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return 0, 0, fmt.Errorf("%q: want N/second|minute|hour|day", s)
	}
	c, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || c <= 0 {
		return 0, 0, fmt.Errorf("%q: want a positive count", s)
	}
	per := map[string]time.Duration{"second": time.Second, "s": time.Second, "minute": time.Minute, "m": time.Minute,
		"min": time.Minute, "hour": time.Hour, "h": time.Hour, "day": 24 * time.Hour, "d": 24 * time.Hour}[strings.TrimSpace(unit)]
	if per == 0 {
		return 0, 0, fmt.Errorf("%q: unknown unit", s)
	}
	return c, per, nil
}

// ledger holds per-day budgets and rate windows, shared by all connections.
type ledger struct {
	mu     sync.Mutex // guards all maps; never held while calling out
	spent  map[string]*big.Int
	events map[string][]time.Time
}

func newLedger() *ledger {
	return &ledger{spent: map[string]*big.Int{}, events: map[string][]time.Time{}}
}

// reserve adds amount to the day's spend for key if it stays within limit
// (or unconditionally when force is set), atomically. It returns a release
// function that gives the reservation back.
func (l *ledger) reserve(key string, amount, limit *big.Int, force bool) (release func(), ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.spent[key]
	if cur == nil {
		cur = new(big.Int)
		l.spent[key] = cur
	}
	next := new(big.Int).Add(cur, amount)
	if limit != nil && next.Cmp(limit) > 0 && !force {
		return nil, false
	}
	cur.Set(next)
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.spent[key].Sub(l.spent[key], amount)
		})
	}, true
}

// allowRate records one event for key if fewer than n happened within per.
func (l *ledger) allowRate(key string, n int, per time.Duration, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	ev := l.events[key]
	cut := now.Add(-per)
	i := 0
	for i < len(ev) && !ev[i].After(cut) {
		i++
	}
	ev = ev[i:]
	if len(ev) >= n {
		l.events[key] = ev
		return false
	}
	l.events[key] = append(ev, now)
	return true
}

// policySigner decides: first matching policy, its checks, budget
// reservation, then the Approver when the policy says a human decides.
type policySigner struct {
	next     Signer
	ledger   *ledger
	approver Approver
	clock    func() time.Time
	// unlocked reports whether the key store can decrypt keys; a human
	// is not asked to approve what could not be signed.
	unlocked func() error
}

func (p *policySigner) match(op *Op) *policy {
	for _, pol := range op.caller.policies {
		if pol.key == op.Key && pol.ops[op.Operation] {
			return pol
		}
	}
	return nil
}

// check returns the refusal for op under pol, and whether op is above the
// policy's limits (value or daily budget).
func (p *policySigner) check(op *Op, pol *policy) (above bool, err error) {
	if op.chainID != nil && !pol.chains[op.chainID.String()] {
		return false, ErrWrongChain
	}
	if op.Domain != nil && op.Domain.ChainID != "" && !pol.chains[op.Domain.ChainID] {
		return false, ErrWrongChain
	}
	if len(pol.to) > 0 {
		switch {
		case op.Operation == "eth_signTransaction" && (op.Create || !pol.to[common.HexToAddress(op.To)]):
			return false, ErrRecipient
		case op.Domain != nil && op.Domain.VerifyingContract == "":
			// Under a `to` allowlist typed data must name the contract it
			// is for: a message without one (or with only a salt) is valid
			// for any contract that accepts it.
			return false, ErrNoContract
		case op.Domain != nil && !pol.to[common.HexToAddress(op.Domain.VerifyingContract)]:
			return false, ErrRecipient
		}
	}
	if op.Purpose != "" && !pol.purposes[op.Purpose] {
		return false, ErrPurpose
	}
	if op.Operation == "jwt" {
		if err := checkJWT(op, pol); err != nil {
			return false, err
		}
	}
	if op.amount != nil && pol.maxValue != nil && op.amount.Cmp(pol.maxValue) > 0 {
		if pol.approval != "above_limit" {
			return false, ErrMaxValue
		}
		above = true
	}
	if op.maxFee != nil && pol.maxFee != nil && op.maxFee.Cmp(pol.maxFee) > 0 {
		if pol.approval != "above_limit" {
			return false, ErrMaxFee
		}
		above = true
	}
	tokAbove, err := checkTokens(op, pol)
	if err != nil {
		return false, err
	}
	return above || tokAbove, nil
}

func (p *policySigner) Sign(ctx context.Context, op *Op) (any, error) {
	pol := p.match(op)
	if pol == nil {
		return nil, ErrNoPolicy
	}
	op.policy = pol
	above, err := p.check(op, pol)
	if err != nil {
		return nil, err
	}
	now := p.clock()
	if pol.rateN > 0 && !p.ledger.allowRate(op.Sandbox+"\x00"+pol.name, pol.rateN, pol.ratePer, now) {
		if pol.approval != "above_limit" {
			return nil, ErrRate
		}
		above = true // beyond the rate: a human decides (prompts are throttled by the Approver)
	}
	var releases []func()
	release := func() {
		for _, r := range releases {
			r()
		}
	}
	day := now.UTC().Format("2006-01-02")
	if op.amount != nil && op.amount.Sign() > 0 && pol.daily != nil {
		bkey := budgetKey(op.Sandbox, pol.name, op.chainID.String(), day)
		r, ok := p.ledger.reserve(bkey, op.amount, pol.daily, false)
		if !ok {
			if pol.approval != "above_limit" {
				return nil, ErrDailyLimit
			}
			above = true
			r, _ = p.ledger.reserve(bkey, op.amount, pol.daily, true)
		}
		releases = append(releases, r)
	}
	if len(pol.tokens) > 0 {
		rs, over := p.reserveTokens(op, pol, day, false)
		if over {
			if pol.approval != "above_limit" {
				release()
				return nil, ErrTokenDaily
			}
			above = true
			rs, _ = p.reserveTokens(op, pol, day, true)
		}
		releases = append(releases, rs...)
	}
	needHuman := pol.approval == "always" || (pol.approval == "above_limit" && above)
	if p.unlocked != nil {
		if err := p.unlocked(); err != nil {
			release()
			return nil, ErrStoreLocked
		}
	}
	if needHuman {
		if p.approver == nil {
			release()
			return nil, ErrDenied
		}
		if err := p.approver.Approve(ctx, op); err != nil {
			release()
			return nil, err
		}
		op.approval = "user"
	} else {
		op.approval = "policy"
	}
	res, err := p.next.Sign(ctx, op)
	if err != nil {
		release()
	}
	return res, err
}

// budgetKey is the ledger key of a daily budget.
func budgetKey(sandbox, policy, chain string, day string) string {
	return strings.Join([]string{sandbox, policy, chain, day}, "\x00")
}

// replay re-reserves what today's audit entries spent, so a restarted
// bridge does not hand out a fresh daily budget: every "allow" of a value
// transfer or a token move counts, minus those followed by "failed" for the
// same digest. The entries come from a log verified at open.
func (l *ledger) replay(entries []AuditEntry, day string) {
	spent := map[string]*big.Int{}
	allowed := map[string]bool{} // digests allowed today
	for _, e := range entries {
		if !strings.HasPrefix(e.Time, day) || e.Decoded == nil {
			continue
		}
		sign := 0
		switch {
		case e.Event == EventAllow:
			sign = 1
			allowed[e.Digest] = true
		case e.Event == EventFailed && allowed[e.Digest]:
			sign = -1
		default:
			continue
		}
		replayTokens(e, day, spent, sign)
		if e.Decoded.Operation != "eth_signTransaction" {
			continue
		}
		v, ok := new(big.Int).SetString(e.Decoded.Value, 10)
		if !ok || v.Sign() <= 0 {
			continue
		}
		addSpend(spent, budgetKey(e.Sandbox, e.Policy, e.Decoded.ChainID, day), v, sign)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, v := range spent {
		if v.Sign() > 0 {
			l.spent[k] = v
		}
	}
}
