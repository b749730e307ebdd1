package signer

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// Token budgets: a policy's `token "0xCONTRACT" { max_amount, daily_limit }`
// blocks count the token amounts a request lets move (decoded transfers,
// approvals and permits, see decode_calls.go) as max_value and daily_limit
// count ETH value. A policy with token blocks treats calldata it cannot
// decode, typed data that is not a permit it decodes, and moves of tokens it
// does not declare as beyond its limits.

// Refusals for token budgets.
var (
	ErrTokenMax        = &Refusal{CodeLimitExceeded, "token amount exceeds the policy's max_amount for that token"}
	ErrTokenDaily      = &Refusal{CodeLimitExceeded, "token daily limit would be exceeded"}
	ErrTokenUndeclared = &Refusal{CodeUnauthorized, "the request moves a token the policy does not declare"}
	ErrUnknownCalldata = &Refusal{CodeUnauthorized, "calldata the signer cannot decode, under a policy that budgets tokens"}
	ErrUnknownTyped    = &Refusal{CodeUnauthorized, "typed data that is not a permit the signer decodes, under a policy that budgets tokens"}
	ErrCreateBudgeted  = &Refusal{CodeUnauthorized, "contract creation under a policy that budgets tokens (the new contract's code can do anything; the policy allows it with allow_create = true)"}
	ErrSafeUncounted   = &Refusal{CodeUnauthorized, "a Safe transaction that sends the Safe's ETH or refunds gas, which token budgets do not count"}
)

// tokenLimit is a compiled token block.
type tokenLimit struct {
	max, daily *big.Int // nil = no limit
}

func compileTokens(p *config.Policy) (map[common.Address]*tokenLimit, error) {
	out := map[common.Address]*tokenLimit{}
	for _, t := range p.Tokens {
		if !common.IsHexAddress(t.Address) {
			return nil, fmt.Errorf("token %q is not an address", t.Address)
		}
		tl := &tokenLimit{}
		var err error
		if t.MaxAmount != "" {
			if tl.max, err = config.ParseTokenAmount(t.MaxAmount, t.Decimals); err != nil {
				return nil, fmt.Errorf("token %s max_amount: %w", t.Address, err)
			}
		}
		if t.DailyLimit != "" {
			if tl.daily, err = config.ParseTokenAmount(t.DailyLimit, t.Decimals); err != nil {
				return nil, fmt.Errorf("token %s daily_limit: %w", t.Address, err)
			}
		}
		out[common.HexToAddress(t.Address)] = tl
	}
	return out, nil
}

// tokenTotals sums what the moves let leave, per token.
func tokenTotals(moves []Move) map[common.Address]*big.Int {
	out := map[common.Address]*big.Int{}
	for _, m := range moves {
		if !m.spends() || !common.IsHexAddress(m.Token) {
			continue
		}
		a := common.HexToAddress(m.Token)
		if out[a] == nil {
			out[a] = new(big.Int)
		}
		out[a].Add(out[a], m.amount())
	}
	return out
}

// checkTokens is the per-request part: undeclared tokens, unknown calldata
// and max_amount. It returns whether op is above the limits.
func checkTokens(op *Op, pol *policy) (above bool, err error) {
	if len(pol.tokens) == 0 {
		return false, nil
	}
	refuse := func(r *Refusal) (bool, error) {
		if pol.approval == "above_limit" {
			return true, nil
		}
		return false, r
	}
	if op.Create && !pol.create {
		// Constructor code runs with whatever it is given and can call
		// anything: the budgets cannot see what it moves.
		return refuse(ErrCreateBudgeted)
	}
	if op.Operation == "eth_signTypedData_v4" && len(op.Moves) == 0 {
		// Orders and other typed data can move tokens the signer cannot
		// see; a policy that budgets tokens cannot vouch for them.
		return refuse(ErrUnknownTyped)
	}
	for _, m := range op.Moves {
		if m.Kind == MoveKindUnknown {
			return refuse(ErrUnknownCalldata)
		}
		if m.Kind == MoveKindSafeCall && (m.Amount != "0" || m.refund) {
			return refuse(ErrSafeUncounted)
		}
		if m.spends() && pol.tokens[common.HexToAddress(m.Token)] == nil {
			return refuse(ErrTokenUndeclared)
		}
	}
	for a, v := range tokenTotals(op.Moves) {
		if tl := pol.tokens[a]; tl.max != nil && v.Cmp(tl.max) > 0 {
			return refuse(ErrTokenMax)
		}
	}
	return false, nil
}

// tokenChain is the chain a request's token moves happen on.
func tokenChain(op *Op) string {
	if op.chainID != nil {
		return op.chainID.String()
	}
	if op.Domain != nil {
		return op.Domain.ChainID
	}
	return ""
}

func tokenBudgetKey(sandbox, policy, chain, day string, token common.Address) string {
	return budgetKey(sandbox, policy, chain, day) + "\x00" + strings.ToLower(token.Hex())
}

// reserveTokens reserves today's token spend for op under pol; force
// reserves beyond the limit (a person will decide). It returns the releases
// and whether a limit was exceeded.
func (p *policySigner) reserveTokens(op *Op, pol *policy, day string, force bool) (releases []func(), over bool) {
	totals := tokenTotals(op.Moves)
	addrs := make([]common.Address, 0, len(totals))
	for a := range totals {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i].Cmp(addrs[j]) < 0 })
	for _, a := range addrs {
		tl := pol.tokens[a]
		if tl == nil || tl.daily == nil {
			continue
		}
		key := tokenBudgetKey(op.Sandbox, pol.name, tokenChain(op), day, a)
		rel, ok := p.ledger.reserve(key, totals[a], tl.daily, force)
		if !ok {
			for _, r := range releases {
				r()
			}
			return nil, true
		}
		releases = append(releases, rel)
	}
	return releases, false
}

// replayTokens adds an audit entry's token spend to spent.
func replayTokens(e AuditEntry, day string, spent map[string]*big.Int, sign int) {
	d := e.Decoded
	chain := d.ChainID
	if chain == "" && d.Domain != nil {
		chain = d.Domain.ChainID
	}
	for a, v := range tokenTotals(d.Moves) {
		addSpend(spent, tokenBudgetKey(e.Sandbox, e.Policy, chain, day, a), v, sign)
	}
}

// addSpend adds (sign > 0) or takes back (sign < 0) v under key k while
// budgets are replayed from the audit log.
func addSpend(spent map[string]*big.Int, k string, v *big.Int, sign int) {
	if spent[k] == nil {
		spent[k] = new(big.Int)
	}
	if sign > 0 {
		spent[k].Add(spent[k], v)
	} else {
		spent[k].Sub(spent[k], v)
	}
}
