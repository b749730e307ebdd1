package signer

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// Signer is what every layer implements: the key signer at the core, policy
// and audit as decorators around it. Sign returns the JSON-RPC result.
type Signer interface {
	Sign(ctx context.Context, op *Op) (any, error)
}

// Decoded is what the signer decoded from a request itself: what approval
// prompts and the audit log show (never a description supplied by the agent).
type Decoded struct {
	Method    string `json:"method"`
	Operation string `json:"operation"` // the policy operation name
	Sandbox   string `json:"sandbox"`
	Key       string `json:"key"` // the sandbox's name for the key
	// Ethereum
	ChainID  string `json:"chain_id,omitempty"` // decimal
	From     string `json:"from,omitempty"`
	To       string `json:"to,omitempty"` // "" with Create set: contract creation
	Create   bool   `json:"create,omitempty"`
	Value    string `json:"value,omitempty"` // wei, decimal
	Selector string `json:"selector,omitempty"`
	TxType   int    `json:"tx_type,omitempty"`
	Nonce    uint64 `json:"nonce,omitempty"`
	DataLen  int    `json:"data_len,omitempty"`
	// Fees, in wei: Gas is the gas limit; GasPrice (legacy and 0x1) or
	// MaxFeePerGas and MaxPriorityFeePerGas (0x2) as signed; MaxFee is the
	// most the transaction can pay in fees, Gas × (GasPrice or MaxFeePerGas).
	Gas                  uint64 `json:"gas,omitempty"`
	GasPrice             string `json:"gas_price,omitempty"`
	MaxFeePerGas         string `json:"max_fee_per_gas,omitempty"`
	MaxPriorityFeePerGas string `json:"max_priority_fee_per_gas,omitempty"`
	MaxFee               string `json:"max_fee,omitempty"`
	MaxFeeETH            string `json:"max_fee_eth,omitempty"` // MaxFee in ETH, e.g. "0.00042 ETH"
	// EIP-191 message (shown to approvers; hex if not printable), at most
	// its first 256 bytes; MessageLen is the whole message's length in
	// bytes when Message is cut.
	Message    string `json:"message,omitempty"`
	MessageLen int    `json:"message_len,omitempty"`
	// EIP-712
	Domain       *TypedDomain `json:"domain,omitempty"`
	PrimaryType  string       `json:"primary_type,omitempty"`
	TypedMessage []TypedField `json:"typed_message,omitempty"` // the whole message, as signed
	// What moves: decoded token transfers and approvals (calldata or typed
	// data); Unknown says calldata could not be decoded.
	Moves []Move `json:"moves,omitempty"`
	// JWT / HMAC / sign / git
	Purpose  string   `json:"purpose,omitempty"`
	Issuer   string   `json:"issuer,omitempty"`
	Audience string   `json:"audience,omitempty"`
	Subject  string   `json:"subject,omitempty"`
	Claims   []string `json:"claims,omitempty"` // names the agent set, sorted
	// ClaimValues are the values of Claims, in the same order.
	ClaimValues []ClaimValue `json:"claim_values,omitempty"`
	Lifetime    string       `json:"lifetime,omitempty"`
	GitType     string       `json:"git_type,omitempty"` // commit | tag
	GitRef      string       `json:"git_ref,omitempty"`  // tree (commit) or object (tag) id
	GitWho      string       `json:"git_who,omitempty"`  // committer / tagger line
	Payload     string       `json:"payload_sha256,omitempty"`
}

// ClaimValue is one JWT claim the agent set, as it is signed: Value is the
// string itself for a string claim and the JSON text otherwise, escaped and
// cut to its first 256 bytes (Len is then the whole value's length).
type ClaimValue struct {
	Name  string `json:"name"`
	Type  string `json:"type"` // string | number | bool | null | object | array
	Value string `json:"value"`
	Len   int    `json:"len,omitempty"`
}

// TypedDomain is the EIP-712 domain as decoded.
type TypedDomain struct {
	Name              string `json:"name,omitempty"`
	Version           string `json:"version,omitempty"`
	ChainID           string `json:"chain_id,omitempty"`
	VerifyingContract string `json:"verifying_contract,omitempty"`
	Salt              string `json:"salt,omitempty"`
}

// Op is one decoded signing request on its way through the layers.
type Op struct {
	Decoded
	Digest string // hex SHA-256 binding Decoded (sandbox and method included) and the exact bytes to be signed

	keyRef  string   // store name of the key
	keyType KeyType  // type the operation needs
	amount  *big.Int // wei moved (budget), nil when not applicable
	maxFee  *big.Int // most wei a transaction pays in fees, nil when not applicable
	chainID *big.Int
	caller  *Caller
	policy  *policy // set by the policy layer
	// sign is the crypto step, built by the decoder; only keySigner calls it.
	sign func(k *key, rnd io.Reader) (any, error)
	// commit is set by the audit layer; keySigner refuses ops without it.
	commit func() error
	// committed reports whether commit succeeded (audit writes "failed" after).
	committed bool
	approval  string
	// JWT audience and claim names as requested (Decoded holds them
	// escaped for display); policy compares these.
	jwtAudience string
	jwtClaims   []string
	whole       *WholeText // personal_sign: the whole message for the prompt
}

// setPayload records the hash of the exact bytes to be signed; the decoder
// calls it once it has built them.
func (op *Op) setPayload(payload []byte) {
	ps := sha256.Sum256(payload)
	op.Payload = hex.EncodeToString(ps[:])
}

// seal computes op.Digest over every decoded field, the payload hash and
// the sandbox and method included: Call runs it after setting them, so two
// sandboxes sending the same request never share a digest (nor, through
// it, an approval prompt, a denial cooldown or a budget replay entry).
func (op *Op) seal() {
	b, _ := json.Marshal(op.Decoded)
	d := sha256.Sum256(b)
	op.Digest = hex.EncodeToString(d[:])
}

// Refusal is a deliberate, sandbox-safe error: the JSON-RPC error the agent
// sees. Codes follow EIP-1193 and EIP-1474 so wallet libraries (ethers,
// viem) classify them: 4001 the person denied (or did not answer in time),
// 4100 policy refuses, 4200 unsupported method, -32005 a budget or rate
// limit refuses, -32602 invalid params, -32603 internal.
type Refusal struct {
	Code   int
	Reason string
}

func (r *Refusal) Error() string { return r.Reason }

// Is makes refusals with the same reason match, so table tests can use
// errors.Is against the sentinels below.
func (r *Refusal) Is(target error) bool {
	t, ok := target.(*Refusal)
	return ok && t.Reason == r.Reason
}

func refusef(code int, format string, args ...any) *Refusal {
	return &Refusal{Code: code, Reason: fmt.Sprintf(format, args...)}
}

// Error codes.
const (
	CodeUserRejected  = 4001   // EIP-1193: the person denied, or the approval timed out
	CodeUnauthorized  = 4100   // EIP-1193: policy does not allow it
	CodeUnsupported   = 4200   // EIP-1193: method not supported
	CodeLimitExceeded = -32005 // EIP-1474: a budget or rate limit refuses
	CodeInvalidParams = -32602 // EIP-1474 / JSON-RPC: invalid params
	CodeInternal      = -32603
)

// Refusal reasons from policy (first match wins; each non-match is one of these).
var (
	ErrNoPolicy   = &Refusal{CodeUnauthorized, "no policy allows this operation with this key"}
	ErrWrongChain = &Refusal{CodeUnauthorized, "chain id not allowed by policy"}
	ErrRecipient  = &Refusal{CodeUnauthorized, "recipient not in the policy's allowlist"}
	ErrMaxValue   = &Refusal{CodeLimitExceeded, "value exceeds the policy's maximum per transaction"}
	ErrMaxFee     = &Refusal{CodeLimitExceeded, "fees (gas limit × fee per gas) may exceed the policy's max_fee"}
	ErrDailyLimit = &Refusal{CodeLimitExceeded, "daily limit would be exceeded"}
	ErrRate       = &Refusal{CodeLimitExceeded, "rate limit exceeded"}
	ErrNoContract = &Refusal{CodeUnauthorized, "typed data names no verifyingContract, and the policy allows only listed contracts"}
	ErrPurpose    = &Refusal{CodeUnauthorized, "purpose not allowed by policy"}
	ErrAudience   = &Refusal{CodeUnauthorized, "audience not allowed by policy"}
	ErrClaim      = &Refusal{CodeUnauthorized, "claim not allowed by policy"}
	ErrLifetime   = &Refusal{CodeUnauthorized, "lifetime exceeds the policy's maximum"}
	// Denials say "User denied" (MetaMask's wording), which ethers maps to
	// ACTION_REJECTED; viem uses the code.
	ErrDenied          = &Refusal{CodeUserRejected, "User denied the request"}
	ErrApprovalTimeout = &Refusal{CodeUserRejected, "User denied the request: no approval within the timeout"}
	ErrThrottled       = &Refusal{CodeLimitExceeded, "too many approval requests waiting; try again later"}
	ErrRecentlyDenied  = &Refusal{CodeUserRejected, "User denied the same request less than a minute ago"}
	// ErrClientGone is what the audit log records when the client
	// disconnected while its request waited for a human.
	ErrClientGone = &Refusal{CodeUserRejected, "the client disconnected before the request was decided"}
	// ErrStoreLocked refuses before a human is asked: the bridge has no
	// passphrase for the key store, so an approval could not be used.
	ErrStoreLocked   = &Refusal{CodeUnauthorized, "the host key store is locked; nothing was signed (the host user can run `airlock key unlock`)"}
	ErrSigningFailed = &Refusal{CodeInternal, "signing failed; see the bridge log"}
	ErrAuditDown     = &Refusal{CodeInternal, "audit log unavailable; nothing was signed"}
)

// Service is the signer as the bridge runs it: one per bridge process.
type Service struct {
	Store    *Store
	Audit    *AuditLog
	Approver Approver
	Clock    func() time.Time
	Rand     io.Reader
	Log      *slog.Logger
	// MaxConns bounds each sandbox's concurrent endpoint connections;
	// 0 means DefaultMaxConns.
	MaxConns int

	chain  Signer
	ledger *ledger
	connMu sync.Mutex     // guards conns
	conns  map[string]int // open endpoint connections by sandbox
}

// Init builds the layer chain; call once before use.
func (s *Service) Init() {
	if s.Clock == nil {
		s.Clock = time.Now
	}
	if s.Rand == nil {
		s.Rand = rand.Reader
	}
	if s.Log == nil {
		s.Log = slog.New(slog.DiscardHandler)
	}
	s.ledger = newLedger()
	if s.Audit != nil {
		// OpenAudit verified the chain and head before keeping these.
		s.ledger.replay(s.Audit.Recent(), s.Clock().UTC().Format("2006-01-02"))
	}
	core := &keySigner{store: s.Store, rand: s.Rand}
	pol := &policySigner{next: core, ledger: s.ledger, approver: s.Approver, clock: s.Clock, unlocked: s.Store.Unlocked}
	s.chain = &auditSigner{next: pol, log: s.Audit, logger: s.Log}
}

// Caller is one sandbox as the signer sees it: its name (from the connection)
// and its approved signer config, with keys resolved to public info.
type Caller struct {
	Sandbox  string
	keys     map[string]PublicInfo // sandbox key name → public info
	refs     map[string]string     // sandbox key name → store name
	policies []*policy
	tokens   map[common.Address]tokenInfo // tokens any policy declares (for showing amounts)
}

// NewCaller resolves cfg's keys (public parts only) and compiles policies.
// A nil cfg gives a caller that every operation refuses.
func (s *Service) NewCaller(sandbox string, cfg *config.Signer) (*Caller, error) {
	c := &Caller{Sandbox: sandbox, keys: map[string]PublicInfo{}, refs: map[string]string{}, tokens: map[common.Address]tokenInfo{}}
	if cfg == nil {
		return c, nil
	}
	for _, k := range cfg.Keys {
		ref := k.Ref
		if ref == "" {
			ref = k.Name
		}
		pi, err := s.Store.Info(ref)
		if err != nil {
			return nil, fmt.Errorf("sandbox %s: key %q (store key %q): %w", sandbox, k.Name, ref, err)
		}
		c.keys[k.Name], c.refs[k.Name] = pi, ref
	}
	for _, p := range cfg.Policies {
		cp, err := compilePolicy(p)
		if err != nil {
			return nil, fmt.Errorf("sandbox %s: policy %q: %w", sandbox, p.Name, err)
		}
		c.policies = append(c.policies, cp)
		for _, t := range p.Tokens {
			if _, ok := c.tokens[common.HexToAddress(t.Address)]; !ok {
				c.tokens[common.HexToAddress(t.Address)] = tokenInfo{symbol: t.Symbol, decimals: t.Decimals}
			}
		}
	}
	return c, nil
}

// Call serves one JSON-RPC method for c. Errors are *Refusal (safe to send).
func (s *Service) Call(ctx context.Context, c *Caller, method string, params json.RawMessage) (any, error) {
	switch method {
	case "eth_accounts", "eth_requestAccounts":
		return c.accounts(), nil
	case "airlock_keys":
		return c.publicKeys(), nil
	case "eth_chainId":
		return c.chainID()
	case "net_version":
		id, err := c.chainID()
		if err != nil {
			return nil, err
		}
		n, _ := new(big.Int).SetString(id[2:], 16)
		return n.String(), nil
	}
	dec, ok := decoders[method]
	var op *Op
	var err error = refusef(CodeUnsupported, "method %q not offered", Escape(method))
	if ok {
		err = checkJSON(params)
	}
	if ok && err == nil {
		op, err = safeDecode(dec, s, c, params)
	}
	if err != nil {
		var r *Refusal
		if !errors.As(err, &r) {
			s.Log.Warn("decode failed", "sandbox", c.Sandbox, "method", Escape(method), "err", err)
			r = refusef(CodeInvalidParams, "invalid params")
		}
		// Validation refusals are audited like any other, with the
		// digest of the params as received.
		s.refuseEarly(c.Sandbox, method, r.Reason, params)
		return nil, r
	}
	op.caller = c
	op.Sandbox = c.Sandbox
	op.Method = method
	op.seal()
	return s.chain.Sign(ctx, op)
}

// publicKeys lists the sandbox's keys: public parts only.
func (c *Caller) publicKeys() []PublicInfo {
	out := make([]PublicInfo, 0, len(c.keys))
	for name, pi := range c.keys {
		pi.Name = name
		pi.Fingerprint = ""
		out = append(out, pi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// keySigner is the innermost layer: the only code that decrypts and uses keys.
type keySigner struct {
	store *Store
	rand  io.Reader
}

func (k *keySigner) Sign(ctx context.Context, op *Op) (any, error) {
	if op.commit == nil || op.sign == nil {
		return nil, errors.New("key signer: op without audit commit or sign step")
	}
	if err := op.commit(); err != nil {
		return nil, err
	}
	op.committed = true
	key, err := k.store.load(op.keyRef)
	if err != nil {
		return nil, fmt.Errorf("load key %s: %w", op.keyRef, err)
	}
	if key.typ != op.keyType {
		return nil, fmt.Errorf("key %s is %s, operation needs %s", op.keyRef, key.typ, op.keyType)
	}
	return op.sign(key, k.rand)
}

// auditSigner records every decision: "allow" before the key is touched
// (through op.commit; if it cannot be written nothing is signed), "refuse"
// for refusals, "failed" when signing fails after the allow entry.
type auditSigner struct {
	next   Signer
	log    *AuditLog
	logger *slog.Logger
}

func (a *auditSigner) entry(op *Op, event string) *AuditEntry {
	d := op.Decoded
	e := &AuditEntry{Event: event, Sandbox: op.Sandbox, Method: op.Method, Key: op.Key, Digest: op.Digest, Approval: op.approval, Decoded: &d}
	if op.policy != nil {
		e.Policy = op.policy.name
	}
	return e
}

func (a *auditSigner) Sign(ctx context.Context, op *Op) (any, error) {
	op.commit = func() error {
		e := a.entry(op, EventAllow)
		e.Decision = "allow"
		if err := a.log.Append(e); err != nil {
			a.logger.Error("audit append failed; refusing", "sandbox", op.Sandbox, "method", op.Method, "err", err)
			return ErrAuditDown
		}
		return nil
	}
	res, err := a.next.Sign(ctx, op)
	if err == nil {
		// The audit log is the record; the bridge log only at debug (the
		// sandbox decides how many requests it makes).
		a.logger.Debug("signer decision", "sandbox", op.Sandbox, "method", op.Method, "decision", "allow", "rule", policyName(op), "digest", op.Digest)
		return res, nil
	}
	var r *Refusal
	switch {
	case errors.As(err, &r) && !op.committed:
		e := a.entry(op, EventRefuse)
		e.Decision, e.Reason = "deny", r.Reason
		if aerr := a.log.Append(e); aerr != nil {
			a.logger.Error("audit append", "err", aerr)
		}
		a.logger.Debug("signer decision", "sandbox", op.Sandbox, "method", op.Method, "decision", "deny", "rule", policyName(op), "reason", r.Reason)
		return nil, r
	case op.committed:
		e := a.entry(op, EventFailed)
		e.Reason = "signing failed"
		if aerr := a.log.Append(e); aerr != nil {
			a.logger.Error("audit append", "err", aerr)
		}
		a.logger.Error("signing failed", "sandbox", op.Sandbox, "method", op.Method, "err", err)
		if errors.As(err, &r) {
			return nil, r
		}
		return nil, ErrSigningFailed
	default:
		a.logger.Error("signing failed", "sandbox", op.Sandbox, "method", op.Method, "err", err)
		if errors.As(err, &r) {
			return nil, r
		}
		return nil, ErrSigningFailed
	}
}

func policyName(op *Op) string {
	if op.policy != nil {
		return op.policy.name
	}
	return ""
}

// safeDecode runs a decoder, turning a panic in a parser (ours or a
// library's) on hostile input into an invalid-params refusal.
func safeDecode(dec decoder, s *Service, c *Caller, params json.RawMessage) (op *Op, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.Log.Error("decoder panic", "sandbox", c.Sandbox, "panic", fmt.Sprint(r))
			op, err = nil, refusef(CodeInvalidParams, "invalid params")
		}
	}()
	return dec(s, c, params)
}
