package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/egress"
	"github.com/airlock-sandbox/airlock/internal/secrets"
	"github.com/airlock-sandbox/airlock/vm"
)

// The egress feature: each sandbox's only way out is its proxy in
// internal/egress, reached from inside at 127.0.0.1:3128 over a remote
// forward on the bridge's SSH connection (the connection is the sandbox's
// identity). Prepare points the guest's tools at it, gives the guest the
// sandbox CA certificate (the key stays in the state dir) and one
// placeholder per credential; policy.list and policy.log serve
// `airlock policy ls|log`; every refusal is also an egress.denied
// notification.

// Guest paths and the proxy address inside every sandbox.
const (
	egressProxyAddr = "127.0.0.1:3128"
	egressProxyURL  = "http://" + egressProxyAddr
	guestCACert     = "/etc/airlock/egress-ca.pem"
	guestCABundle   = "/etc/airlock/ca-bundle.pem"
	guestNodeHook   = "/etc/airlock/node-proxy.cjs"
)

// hostBundles are where Linux distributions keep the system CA bundle.
var hostBundles = []string{"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"}

// egressFeature is one daemon's egress: the proxy and decision log of each
// sandbox, dropped when the sandbox is removed and closed with the daemon.
type egressFeature struct {
	signer *signerFeature // whose approval queue holds network approvals

	mu    sync.Mutex // guards byBox, stale and logs
	byBox map[string]*egressState
	// stale names sandboxes the bridge let go of (stopped): their next
	// guest connection rebuilds the proxy from the host settings as they
	// are then, so egress.hcl changes apply at the next start or up.
	stale map[string]bool
	logs  map[string]*egress.DecisionLog // kept across rebuilds; closed on Removed
}

// egressState is one sandbox's built proxy, rebuilt when its approved
// config changes.
type egressState struct {
	cfg   *config.Sandbox
	proxy *egress.Proxy
	creds []*egress.Credential
}

func newEgressFeature(s *signerFeature) *egressFeature {
	return &egressFeature{signer: s, byBox: map[string]*egressState{}, stale: map[string]bool{}, logs: map[string]*egress.DecisionLog{}}
}

func (e *egressFeature) feature() *Feature {
	return &Feature{
		Name: "egress",
		Methods: map[string]Handler{
			protocol.MethodPolicyList: e.policyList,
			protocol.MethodPolicyLog:  egressPolicyLog,
		},
		Prepare:  e.prepare,
		Removed:  e.removed,
		Detached: e.detached,
		Close:    e.close,
		GuestServices: []GuestService{{
			Name: "egress proxy", Network: "tcp", Addr: egressProxyAddr, Serve: e.serve,
		}},
	}
}

// proxyFor returns the sandbox's proxy, building it on first use and,
// for a guest connection (running), again after the sandbox was stopped.
// A stopped sandbox's proxy (policy ls) is built fresh each time and not
// kept: it shows what the next start will enforce.
func (e *egressFeature) proxyFor(env Env, sb SandboxRef, running bool) (*egressState, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if running && e.stale[sb.Name()] {
		delete(e.byBox, sb.Name())
		delete(e.stale, sb.Name())
	}
	if st, ok := e.byBox[sb.Name()]; ok && st.cfg == sb.Config() && !e.stale[sb.Name()] {
		return st, nil
	}
	dlog, ok := e.logs[sb.Name()]
	if !ok {
		var err error
		if dlog, err = egress.OpenDecisionLog(filepath.Join(sb.RecordDir(), egress.LogFile)); err != nil {
			return nil, err
		}
		e.logs[sb.Name()] = dlog
	}
	st, err := buildEgress(env, sb, dlog, e.signer)
	if err != nil {
		return nil, err
	}
	if !e.stale[sb.Name()] {
		e.byBox[sb.Name()] = st
	}
	return st, nil
}

// startable checks, before a sandbox boots, that its proxy builds from the
// host settings as they are now: a broken egress.hcl fails `start` with its
// file:line:col (fail closed) instead of a sandbox whose every request
// gets a 503. A stopped sandbox's proxy is built and dropped (its guest
// connection builds it again), a running one's is the one it uses.
func (e *egressFeature) startable(env Env, sb SandboxRef) error {
	if _, err := e.proxyFor(env, sb, false); err != nil {
		return &Error{Code: protocol.CodeFailed, Message: "egress: " + egressOneLine(err.Error())}
	}
	return nil
}

// detached marks the sandbox's proxy stale: the bridge let go of it
// (stop), and its next start reads the host settings again.
func (e *egressFeature) detached(env Env, name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.byBox, name)
	e.stale[name] = true
}

func buildEgress(env Env, sb SandboxRef, dlog *egress.DecisionLog, approvals *signerFeature) (*egressState, error) {
	cfg := sb.Config()
	if cfg == nil {
		return nil, errors.New("sandbox has no config")
	}
	hs, err := egress.LoadHostSettings(env.Home())
	if err != nil {
		return nil, err
	}
	var names []string
	for _, c := range cfg.Credentials {
		names = append(names, c.Name)
	}
	pol, err := egress.BuildPolicy(egress.Network{Preset: cfg.Network.Preset, Allow: cfg.Network.Allow,
		Deny: cfg.Network.Deny, Source: sb.ConfigPath()}, hs)
	if err != nil {
		return nil, err
	}
	phs, err := egress.LoadOrCreatePlaceholders(sb.RecordDir(), names)
	if err != nil {
		return nil, err
	}
	var creds []*egress.Credential
	for _, c := range cfg.Credentials {
		creds = append(creds, &egress.Credential{Name: c.Name, Secret: c.Secret, Hosts: c.Hosts, Header: c.Header,
			Format: c.Format, Query: c.Query, Env: c.Env, Placeholder: phs[c.Name]})
	}
	ca, err := egress.LoadOrCreateCA(sb.RecordDir(), sb.Name(), nil)
	if err != nil {
		return nil, err
	}
	resolver, err := hs.Resolver(net.DefaultResolver)
	if err != nil {
		return nil, err
	}
	roots, err := hs.RootCAs()
	if err != nil {
		return nil, err
	}
	approve, err := hs.ApproveRules(cfg.Network.Approve, sb.ConfigPath())
	if err != nil {
		return nil, err
	}
	heldTimeout, err := hs.HeldTimeout()
	if err != nil {
		return nil, err
	}
	p, err := egress.New(egress.Config{
		Approve: approve, Approver: approvals.networkApprover(env, heldTimeout),
		Sandbox: sb.Name(), Policy: pol, Resolver: resolver, Credentials: creds,
		Secrets: secrets.Open(env.Home()), CA: ca, RootCAs: roots, Log: dlog, Logger: env.Logger(),
		OnDeny: func(e egress.Entry) { env.Notify(protocol.NotifyEgressDenied, toDecision(e)) },
	})
	if err != nil {
		return nil, err
	}
	return &egressState{cfg: cfg, proxy: p, creds: creds}, nil
}

func toDecision(e egress.Entry) protocol.EgressDecision {
	return protocol.EgressDecision{Time: e.Time, Sandbox: e.Sandbox, Method: e.Method, Host: e.Host, Port: e.Port,
		Addr: e.Addr, Rule: e.Rule, Verdict: e.Verdict, Reason: e.Reason, Bytes: e.Bytes,
		Credential: e.Credential, Intercepted: e.Intercepted, Approval: e.Approval, URL: e.URL, BodySHA256: e.BodySHA256}
}

// egressPrepare builds the proxy (so a bad rule fails `up` with a clear
// message), then adds the proxy env, the CA files and the placeholders. A
// credential whose secret is not set only warns: requests using it get a
// 403 naming the missing secret.
func (e *egressFeature) prepare(ctx context.Context, env Env, sb SandboxRef, spec *vm.Spec) error {
	e.mu.Lock()
	delete(e.byBox, sb.Name()) // rebuild: host settings may have changed
	delete(e.stale, sb.Name())
	e.mu.Unlock()
	st, err := e.proxyFor(env, sb, true)
	if err != nil {
		return &Error{Code: protocol.CodeFailed, Message: "egress: " + egressOneLine(err.Error())}
	}
	store := secrets.Open(env.Home())
	if spec.Env == nil {
		spec.Env = map[string]string{}
	}
	for k, v := range egressEnv() {
		spec.Env[k] = v
	}
	if prev := spec.Env["NODE_OPTIONS"]; prev != "" {
		spec.Env["NODE_OPTIONS"] = prev + " --require " + guestNodeHook
	} else {
		spec.Env["NODE_OPTIONS"] = "--require " + guestNodeHook
	}
	for _, c := range st.creds {
		if c.Env != "" {
			spec.Env[c.Env] = c.Placeholder
		}
		if !store.Has(c.Secret) {
			env.Logger().Warn("egress: credential secret is not set; requests using it will be refused",
				"sandbox", sb.Name(), "credential", c.Name, "secret", c.Secret)
			Warn(ctx, fmt.Sprintf("credential %q: secret %q is not in your store (`airlock secret set %s`); requests that need it are refused", c.Name, c.Secret, c.Secret))
		}
	}
	caPEM := st.proxyCA()
	bundle := append(systemBundle(env), '\n')
	bundle = append(bundle, caPEM...)
	spec.Files = append(spec.Files,
		vm.File{Path: guestCACert, Mode: 0o644, Data: caPEM},
		vm.File{Path: guestCABundle, Mode: 0o644, Data: bundle},
		vm.File{Path: guestNodeHook, Mode: 0o644, Data: []byte(egress.NodeProxyHook)},
	)
	return nil
}

func (st *egressState) proxyCA() []byte { return st.proxy.CA().CertPEM() }

// egressEnv is what every session inside sees: config.GuestEnv, the one
// list sandbox.hcl may not set, with the value of what each carries.
func egressEnv() map[string]string {
	value := map[config.Carries]string{
		config.CarriesProxy: egressProxyURL, config.CarriesNoProxy: "localhost,127.0.0.1,::1",
		config.CarriesCABundle: guestCABundle, config.CarriesCACert: guestCACert,
	}
	m := map[string]string{}
	for _, v := range config.GuestEnv() {
		m[v.Name] = value[v.Carries]
	}
	return m
}

func systemBundle(env Env) []byte {
	for _, p := range hostBundles {
		if b, err := os.ReadFile(p); err == nil && len(b) > 0 {
			return b
		}
	}
	env.Logger().Warn("egress: no system CA bundle found on the host; the sandbox bundle holds only the sandbox CA")
	return nil
}

// serve serves one connection from inside the sandbox.
func (e *egressFeature) serve(ctx context.Context, env Env, sb SandboxRef, conn net.Conn) {
	st, err := e.proxyFor(env, sb, true)
	if err != nil {
		env.Logger().Error("egress: proxy unavailable", "sandbox", sb.Name(), "err", err)
		body := "airlock egress: the proxy for this sandbox is unavailable (see the bridge log on the host)\n"
		fmt.Fprintf(conn, "HTTP/1.1 503 Service Unavailable\r\nX-Airlock-Denied: egress-unavailable\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
		conn.Close()
		return
	}
	st.proxy.ServeConn(ctx, conn)
}

func (e *egressFeature) removed(ctx context.Context, env Env, name string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.byBox, name)
	delete(e.stale, name)
	if l, ok := e.logs[name]; ok {
		l.Close()
		delete(e.logs, name)
	}
	return nil
}

// close closes every decision log with the daemon.
func (e *egressFeature) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for name, l := range e.logs {
		l.Close()
		delete(e.logs, name)
	}
	clear(e.byBox)
}

func egressSandbox(env Env, raw json.RawMessage, params any, name func() string) (SandboxRef, error) {
	if err := decodeParams("egress", raw, params); err != nil {
		return nil, err
	}
	sb, err := env.Sandbox(name())
	if err != nil {
		return nil, &Error{Code: protocol.CodeNotFound, Message: fmt.Sprintf("no sandbox named %q", name())}
	}
	return sb, nil
}

// alwaysRules describes the fixed part of every policy.
var alwaysRules = []string{
	"deny rules beat allow rules, wherever they come from",
	"anything no allow rule matches is refused (default-deny)",
	"names are resolved on the host; an address that is loopback, private, link-local (169.254.169.254), CGNAT, ULA, IPv4-mapped, unspecified, multicast or reserved is refused unless an explicit IP/CIDR allow rule names it",
	"the proxy dials the address it vetted; the Host of a request must match what is dialled",
	"no DNS, UDP or ICMP leaves the sandbox; tools that ignore the proxy fail",
}

func (e *egressFeature) policyList(ctx context.Context, env Env, raw json.RawMessage) (any, error) {
	var p protocol.PolicyParams
	sb, err := egressSandbox(env, raw, &p, func() string { return p.Name })
	if err != nil {
		return nil, err
	}
	st, err := e.proxyFor(env, sb, false)
	if err != nil {
		return nil, &Error{Code: protocol.CodeFailed, Message: "egress: " + egressOneLine(err.Error())}
	}
	pol := st.proxy.Policy()
	res := protocol.PolicyListResult{Sandbox: sb.Name(), Preset: pol.Preset, Rules: []protocol.PolicyRule{},
		Approve: []protocol.PolicyApproveRule{}, Credentials: []protocol.PolicyCredential{}, Always: alwaysRules}
	for _, a := range st.proxy.ApproveRules() {
		res.Approve = append(res.Approve, protocol.PolicyApproveRule{Rule: a.Raw, Source: a.Source})
	}
	for _, r := range pol.Rules() {
		res.Rules = append(res.Rules, protocol.PolicyRule{Action: string(r.Action), Pattern: r.Pattern, Kind: string(r.Kind), Port: r.Port, Source: r.Source})
	}
	store := secrets.Open(env.Home())
	for _, c := range st.creds {
		place := "header " + c.Header + " (" + c.Format + ")"
		if c.Header == "" && c.Query != "" {
			place = "query parameter " + c.Query
		}
		res.Credentials = append(res.Credentials, protocol.PolicyCredential{Name: c.Name, Secret: c.Secret,
			SecretSet: store.Has(c.Secret), Hosts: c.Hosts, Env: c.Env, Place: place})
	}
	return res, nil
}

// logPage is how many log entries one call returns: the client's limit,
// 1000 when it gives none, never more than 10000.
func logPage(limit int) int {
	if limit <= 0 || limit > 10000 {
		return 1000
	}
	return limit
}

func egressPolicyLog(ctx context.Context, env Env, raw json.RawMessage) (any, error) {
	var p protocol.PolicyLogParams
	sb, err := egressSandbox(env, raw, &p, func() string { return p.Name })
	if err != nil {
		return nil, err
	}
	entries, next, err := egress.ReadLog(filepath.Join(sb.RecordDir(), egress.LogFile), p.Offset, logPage(p.Limit))
	if err != nil {
		return nil, err
	}
	res := protocol.PolicyLogResult{Entries: []protocol.EgressDecision{}, Next: next}
	for _, e := range entries {
		res.Entries = append(res.Entries, toDecision(e))
	}
	return res, nil
}

func egressOneLine(s string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	var parts []string
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}
