package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/signer"
	"github.com/airlock-sandbox/airlock/vm"
)

// The signer feature: the signing endpoint inside every sandbox (tcp
// 127.0.0.1:8550 and unix /run/airlock/signer.sock, each connection served
// as HTTP JSON-RPC by internal/signer for the sandbox it arrived from), git
// signing config placed in the guest, and the host user's approval methods.
// Keys are decrypted only here, with the passphrase the bridge was started
// with (AIRLOCK_PASSPHRASE, removed from the bridge's environment on first
// use so no child process inherits it).

// Guest paths the signer feature owns.
const (
	SignerTCPAddr     = "127.0.0.1:8550"
	SignerSocketPath  = "/run/airlock/signer.sock"
	signerGitProgram  = "/run/airlock/gitsign"
	signerAllowedPath = "/etc/airlock/allowed_signers"
)

// signerFeature is one daemon's signer: the key store passphrase, the
// signer service with its audit log and the approval queue (which network
// approvals share, with the held requests they stand for).
type signerFeature struct {
	mu sync.Mutex // guards st
	st *signerState

	passMu    sync.Mutex // guards pass and passTaken
	passTaken bool       // pass was initialized from AIRLOCK_PASSPHRASE
	// pass is the key store passphrase: AIRLOCK_PASSPHRASE at start, or
	// what `airlock key unlock` sent.
	pass []byte

	held heldRequests
}

type signerState struct {
	svc   *signer.Service
	queue *signer.Queue
	err   error
}

func newSignerFeature() *signerFeature { return &signerFeature{} }

func (s *signerFeature) feature() *Feature {
	return &Feature{
		Name: "signer",
		Methods: map[string]Handler{
			protocol.MethodApprovalsList:   s.approvalsList,
			protocol.MethodApprovalsDecide: s.approvalsDecide,
			protocol.MethodSignerUnlock:    s.unlock,
		},
		Prepare: signerPrepare,
		Close:   s.close,
		GuestServices: []GuestService{
			{Name: "signer-tcp", Network: "tcp", Addr: SignerTCPAddr, Serve: s.serve},
			{Name: "signer-unix", Network: "unix", Addr: SignerSocketPath, Serve: s.serve},
		},
	}
}

// envPassphrase takes AIRLOCK_PASSPHRASE out of the environment on first
// use. The environment is the process's, so this is the one piece of
// signer state that is not the daemon's.
var envPassphrase = sync.OnceValue(func() []byte {
	p := os.Getenv("AIRLOCK_PASSPHRASE")
	if p == "" {
		return nil
	}
	os.Unsetenv("AIRLOCK_PASSPHRASE")
	return []byte(p)
})

// passphrase returns the current passphrase, taking AIRLOCK_PASSPHRASE out
// of the environment on first use.
func (s *signerFeature) passphrase() []byte {
	s.passMu.Lock()
	defer s.passMu.Unlock()
	if !s.passTaken {
		s.pass, s.passTaken = envPassphrase(), true
	}
	return s.pass
}

func (s *signerFeature) setPassphrase(p []byte) {
	s.passMu.Lock()
	s.pass, s.passTaken = p, true
	s.passMu.Unlock()
}

// state returns the signer service of this daemon, opening the audit log
// on first use (and again after a failed open).
func (s *signerFeature) state(env Env) *signerState {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil && s.st.err == nil {
		return s.st
	}
	home := env.Home()
	s.passphrase()
	st := &signerState{}
	audit, err := signer.OpenAudit(signer.AuditPath(home), nil)
	if err != nil {
		env.Logger().Error("signer audit log unavailable; signing disabled", "err", err)
		st.err = err
		s.st = st
		return st
	}
	st.queue = &signer.Queue{Notify: func(r signer.ApprovalRequest) {
		env.Notify(protocol.NotifyApprovalRequested, s.approvalWire(r))
	}}
	st.svc = &signer.Service{
		Store: &signer.Store{Dir: filepath.Join(home, "keys"), Passphrase: func() ([]byte, error) {
			if p := s.passphrase(); len(p) > 0 {
				return p, nil
			}
			return nil, errors.New("the bridge has no key store passphrase (run `airlock key unlock` or start it with AIRLOCK_PASSPHRASE set)")
		}},
		Audit:    audit,
		Approver: st.queue,
		Log:      env.Logger().With("feature", "signer"),
	}
	st.svc.Init()
	s.st = st
	return st
}

// close closes the audit log with the daemon; signing fails closed after.
func (s *signerFeature) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil && s.st.err == nil {
		s.st.svc.Audit.Close()
	}
}

func (s *signerFeature) serve(ctx context.Context, env Env, sb SandboxRef, conn net.Conn) {
	defer conn.Close()
	st := s.state(env)
	if st.err != nil {
		return // fail closed: no audit log, no endpoint
	}
	var cfg *config.Signer
	if c := sb.Config(); c != nil {
		cfg = c.Signer
	}
	st.svc.ServeConn(ctx, sb.Name(), cfg, conn)
}

// signerPrepare places git's signing config in the guest when a policy
// allows "git" with an ed25519 or p256 key: git commit -S then asks the host
// through `airlock-agent gitsign`; only the public key is written inside.
func signerPrepare(ctx context.Context, env Env, sb SandboxRef, spec *vm.Spec) error {
	cfg := sb.Config()
	if cfg == nil || cfg.Signer == nil {
		return nil
	}
	keys := &signer.Store{Dir: filepath.Join(env.Home(), "keys")}
	for _, k := range cfg.Signer.Keys {
		if _, err := keys.Info(k.Ref); err != nil {
			Warn(ctx, fmt.Sprintf("signer: key %q (ref %q) is not in your store (`airlock key new %s` or `airlock key import %s`); requests for it are refused", k.Name, k.Ref, k.Ref, k.Ref))
		}
	}
	if spec.Env == nil {
		spec.Env = map[string]string{}
	}
	spec.Env["AIRLOCK_SIGNER"] = "http://" + SignerTCPAddr
	spec.Env["AIRLOCK_SIGNER_SOCK"] = SignerSocketPath
	line, err := gitSigningKey(env.Home(), cfg.Signer)
	if err != nil {
		// The sandbox still starts; git signing is simply not configured
		// and the endpoint refuses requests for the missing key.
		env.Logger().Warn("git signing not configured", "sandbox", sb.Name(), "err", err)
		return nil
	}
	if line == "" {
		return nil
	}
	gitconfig := "# Written by airlock (signer feature): `git commit -S` and `git tag -s`\n" +
		"# are signed on the host; the private key never enters the sandbox.\n" +
		"[gpg]\n\tformat = ssh\n" +
		"[gpg \"ssh\"]\n\tprogram = " + signerGitProgram + "\n\tallowedSignersFile = " + signerAllowedPath + "\n" +
		"[user]\n\tsigningkey = key::" + line + "\n"
	spec.Files = append(spec.Files,
		vm.File{Path: "/etc/gitconfig", Mode: 0o644, Data: []byte(gitconfig)},
		vm.File{Path: signerGitProgram, Mode: 0o755, Data: []byte("#!/bin/sh\nexec /run/airlock/bin/airlock-agent gitsign \"$@\"\n")},
		vm.File{Path: signerAllowedPath, Mode: 0o644, Data: []byte("* namespaces=\"git\" " + line + "\n")},
	)
	return nil
}

// gitSigningKey is the authorized_keys line of the key the first "git"
// policy names, "" when none does.
func gitSigningKey(home string, s *config.Signer) (string, error) {
	for _, p := range s.Policies {
		isGit := false
		for _, o := range p.Operations {
			isGit = isGit || o == "git"
		}
		if !isGit {
			continue
		}
		for _, k := range s.Keys {
			if k.Name != p.Key {
				continue
			}
			ref := k.Ref
			if ref == "" {
				ref = k.Name
			}
			pi, err := (&signer.Store{Dir: filepath.Join(home, "keys")}).Info(ref)
			if err != nil {
				return "", fmt.Errorf("signer key %q (store key %q): %w; create it with `airlock key new %s --type ed25519`", k.Name, ref, err, ref)
			}
			if pi.SSH == "" {
				return "", fmt.Errorf("signer key %q is %s; git signing needs ed25519 or p256", k.Name, pi.Type)
			}
			// Drop the comment: only "type base64" goes into the guest.
			f := strings.Fields(pi.SSH)
			return f[0] + " " + f[1], nil
		}
	}
	return "", nil
}

// ApprovalWire is a pending signer request as the bridge sends it (CLI,
// editor). A daemon's queue also holds network approvals, which it sends
// with what its held requests add (signerFeature.approvalWire).
func ApprovalWire(r signer.ApprovalRequest) protocol.Approval { return approvalWire(r, nil) }

// approvalWire is ApprovalWire with the held network requests that
// network approvals stand for (nil: none).
func approvalWire(r signer.ApprovalRequest, held *heldRequests) protocol.Approval {
	d := r.Decoded
	a := protocol.Approval{
		ID: r.ID, Digest: r.Digest, Sandbox: d.Sandbox, Method: d.Method, Operation: d.Operation, Policy: r.Policy,
		Key: d.Key, ChainID: d.ChainID, From: d.From, To: d.To, Create: d.Create, Value: d.Value, Selector: d.Selector,
		Created: r.Created.UTC().Format(time.RFC3339), Deadline: r.Expires.UTC().Format(time.RFC3339),
		Details: protocol.ApprovalDetails{TxType: d.TxType, Nonce: d.Nonce, DataLen: d.DataLen,
			Gas: d.Gas, GasPrice: d.GasPrice, MaxFeePerGas: d.MaxFeePerGas, MaxPriorityFeePerGas: d.MaxPriorityFeePerGas,
			MaxFee: d.MaxFee, MaxFeeETH: d.MaxFeeETH, Message: d.Message, MessageLen: d.MessageLen,
			PrimaryType: d.PrimaryType, Message712: typedWire(d.TypedMessage), Purpose: d.Purpose, Issuer: d.Issuer,
			Audience: d.Audience, Subject: d.Subject, Claims: d.Claims, Lifetime: d.Lifetime, GitType: d.GitType,
			GitRef: d.GitRef, GitWho: d.GitWho, PayloadHash: d.Payload},
	}
	if r.Message != nil {
		a.Details.MessageLines, a.Details.MessageHex = r.Message.Lines, r.Message.Hex
	}
	if d.Domain != nil {
		a.Domain = &protocol.TypedDomain{Name: d.Domain.Name, Version: d.Domain.Version, ChainID: d.Domain.ChainID,
			VerifyingContract: d.Domain.VerifyingContract, Salt: d.Domain.Salt}
	}
	for _, c := range d.ClaimValues {
		a.Details.ClaimValues = append(a.Details.ClaimValues, protocol.ClaimValue{Name: c.Name, Type: c.Type, Value: c.Value, Len: c.Len})
	}
	for _, m := range d.Moves {
		a.Moves = append(a.Moves, protocol.Move{Kind: m.Kind, Token: m.Token, From: m.From, To: m.To, Amount: m.Amount,
			AmountText: m.AmountText, TokenID: m.TokenID, Approved: m.Approved, Deadline: m.Deadline, Note: m.Note,
			Risk: m.Risk, Index: m.Index})
	}
	if h, n, ok := held.lookup(r.Digest); ok {
		networkApprovalWire(&a, h, n)
	}
	a.Summary = approvalSummary(a)
	return a
}

func (s *signerFeature) approvalWire(r signer.ApprovalRequest) protocol.Approval {
	return approvalWire(r, &s.held)
}

func typedWire(fs []signer.TypedField) []protocol.TypedField {
	if len(fs) == 0 {
		return nil
	}
	out := make([]protocol.TypedField, len(fs))
	for i, f := range fs {
		out[i] = protocol.TypedField{Name: f.Name, Type: f.Type, Value: f.Value, Fields: typedWire(f.Fields)}
	}
	return out
}

// Prompt widths: how much of one agent-supplied string a prompt line shows.
const (
	quoteShort = 60  // in the one-line summary
	quoteLong  = 200 // on a line of its own
)

// approvalSummary is one line for a person. What the signer fixes (chain,
// contract, key) comes before anything the agent wrote, and every string
// the agent controls is in double quotes (the signer escaped `"`, `\`,
// controls, bidi and zero-width characters) and cut with the marker inside
// the quotes, so padding cannot push the real fields out of view or fake a
// field. TerminalSafe is the last guard.
func approvalSummary(a protocol.Approval) string {
	if a.Operation == networkOperation {
		return networkSummary(a)
	}
	q := func(s string) string { return signer.Quote(s, quoteShort, 0) }
	s := a.Sandbox + ": " + a.Method + " key=" + a.Key
	switch {
	case a.Operation == "eth_signTransaction" && a.Create:
		s += fmt.Sprintf(" chain=%s create contract value=%s wei", a.ChainID, a.Value)
	case a.Operation == "eth_signTransaction":
		s += fmt.Sprintf(" chain=%s to=%s value=%s wei", a.ChainID, a.To, a.Value)
		if a.Selector != "" {
			s += " selector=" + a.Selector
		}
	case a.Domain != nil:
		s += fmt.Sprintf(" chain=%s contract=%s %s domain=%s", a.Domain.ChainID, a.Domain.VerifyingContract, q(a.Details.PrimaryType), q(a.Domain.Name))
	case a.Operation == "personal_sign":
		s += " message=" + signer.Quote(a.Details.Message, quoteShort, a.Details.MessageLen)
	case a.Operation == "jwt":
		s += fmt.Sprintf(" lifetime=%s aud=%s", a.Details.Lifetime, q(a.Details.Audience)) // sub is among the claims
		for _, c := range a.Details.ClaimValues {
			s += " " + ClaimText(c, quoteShort)
		}
	case a.Operation == "git":
		s += fmt.Sprintf(" %s %s by %s", a.Details.GitType, a.Details.GitRef, q(a.Details.GitWho))
	case a.Details.Purpose != "":
		s += " purpose=" + q(a.Details.Purpose)
	}
	if a.Details.MaxFee != "" {
		s += " " + FeeText(a.Details)
	}
	for _, m := range a.Moves {
		s += " | " + MoveText(m)
	}
	return signer.TerminalSafe(s)
}

// FeeText is a transaction's fee fields in words: gas limit, fee caps and
// the most it can pay in fees, in wei and ETH.
func FeeText(d protocol.ApprovalDetails) string {
	s := fmt.Sprintf("gas=%d", d.Gas)
	if d.GasPrice != "" {
		s += " gasPrice=" + d.GasPrice + " wei"
	} else {
		s += " maxFeePerGas=" + d.MaxFeePerGas + " wei maxPriorityFeePerGas=" + d.MaxPriorityFeePerGas + " wei"
	}
	return s + " maxFee=" + d.MaxFee + " wei (" + d.MaxFeeETH + ")"
}

// ClaimText is one JWT claim: name=value, the value quoted (and its JSON
// type named when it is not a string).
func ClaimText(c protocol.ClaimValue, max int) string {
	s := c.Name + "=" + signer.Quote(c.Value, max, c.Len)
	if c.Type != "string" {
		s += " (" + c.Type + ")"
	}
	return s
}

// MoveText is one decoded move in words.
func MoveText(m protocol.Move) string {
	pre := ""
	if m.Index > 0 {
		pre = fmt.Sprintf("#%d ", m.Index)
	}
	if m.Risk == signer.RiskHigh && m.Kind != "unknown" {
		pre += "HIGH RISK "
	}
	if m.Kind == "unknown" {
		return pre + "UNKNOWN CALLDATA: " + m.Note
	}
	s := pre + m.Kind
	amt := m.Amount
	if m.AmountText != "" {
		amt = m.AmountText + " (" + m.Amount + " base units)"
	}
	if amt != "" {
		s += " amount " + amt
	}
	if m.TokenID != "" {
		s += " token id " + m.TokenID
	}
	if m.Approved != nil {
		s += fmt.Sprintf(" approved=%v", *m.Approved)
	}
	if m.From != "" {
		s += " from " + m.From
	}
	if m.To != "" {
		s += " to " + m.To
	}
	if m.Token != "" {
		s += " token " + m.Token
	}
	if m.Deadline != "" {
		s += " deadline " + m.Deadline
	}
	if m.Note != "" {
		s += " (" + m.Note + ")"
	}
	return s
}

func (s *signerFeature) approvalsList(ctx context.Context, env Env, _ json.RawMessage) (any, error) {
	st := s.state(env)
	res := protocol.ApprovalsListResult{Approvals: []protocol.Approval{}}
	if st.err != nil {
		return res, nil
	}
	for _, r := range st.queue.Pending() {
		res.Approvals = append(res.Approvals, s.approvalWire(r))
	}
	return res, nil
}

func (s *signerFeature) approvalsDecide(ctx context.Context, env Env, params json.RawMessage) (any, error) {
	var p protocol.ApprovalDecideParams
	if err := decodeParamsWant(protocol.MethodApprovalsDecide, "{id, decision}", params, &p, func() bool { return p.ID != "" }); err != nil {
		return nil, err
	}
	var allow bool
	switch p.Decision {
	case protocol.DecisionApprove:
		allow = true
	case protocol.DecisionDeny:
	default:
		return nil, &Error{Code: protocol.CodeFailed, Message: `decision must be "approve" or "deny"`}
	}
	st := s.state(env)
	if st.err != nil {
		return nil, &Error{Code: protocol.CodeNotFound, Message: "no pending approval " + p.ID}
	}
	switch err := st.queue.Decide(p.ID, p.Digest, allow); {
	case errors.Is(err, signer.ErrNoSuchApproval):
		return nil, &Error{Code: protocol.CodeNotFound, Message: "no pending approval " + p.ID + " (answered, timed out or never existed)"}
	case errors.Is(err, signer.ErrDigestMismatch):
		return nil, &Error{Code: protocol.CodeInvalidState, Message: "approval " + p.ID + " is for a different request digest"}
	case err != nil:
		return nil, err
	}
	env.Logger().Info("approval decided", "id", p.ID, "decision", p.Decision)
	return struct{}{}, nil
}

// unlock sets the key store passphrase of a running bridge after checking
// it opens a stored key.
func (s *signerFeature) unlock(ctx context.Context, env Env, params json.RawMessage) (any, error) {
	var p protocol.SignerUnlockParams
	if err := decodeParamsWant(protocol.MethodSignerUnlock, "{passphrase}", params, &p, func() bool { return p.Passphrase != "" }); err != nil {
		return nil, err
	}
	s.passphrase()
	pass := []byte(p.Passphrase)
	probe := &signer.Store{Dir: filepath.Join(env.Home(), "keys"), Passphrase: func() ([]byte, error) { return pass, nil }}
	if err := probe.CheckPassphrase(); err != nil {
		env.Logger().Warn("signer unlock refused", "err", err)
		return nil, &Error{Code: protocol.CodeDenied, Message: "wrong passphrase for the key store"}
	}
	s.setPassphrase(pass)
	env.Logger().Info("signer unlocked")
	return struct{}{}, nil
}
