package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

// newTestDaemon serves a daemon with a temp home over net.Pipe and returns a client.
func newTestDaemon(t *testing.T) (*Daemon, *Client) {
	t.Helper()
	home := t.TempDir()
	d, err := New(Options{Home: home, Self: "/usr/bin/airlock"})
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	d.ServeConn(a)
	c := NewClient(b)
	t.Cleanup(func() { c.Close(); d.Close() })
	return d, c
}

func rpcCode(t *testing.T, err error) (int64, string) {
	t.Helper()
	var je *jsonrpc2.Error
	if !errors.As(err, &je) {
		t.Fatalf("want *jsonrpc2.Error, got %T %v", err, err)
	}
	return je.Code, je.Message
}

func TestAPIRefusals(t *testing.T) {
	_, c := newTestDaemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cases := []struct {
		method string
		params any
		code   int64
		msg    string
	}{
		{"no.such.method", struct{}{}, jsonrpc2.CodeMethodNotFound, `unknown method "no.such.method"`},
		{protocol.MethodStop, nil, jsonrpc2.CodeInvalidParams, "sandbox.stop needs params"},
		{protocol.MethodStop, json.RawMessage(`[1,2]`), jsonrpc2.CodeInvalidParams, "invalid params for sandbox.stop"},
		{protocol.MethodExec, json.RawMessage(`{"name":5}`), jsonrpc2.CodeInvalidParams, "invalid params for sandbox.exec"},
		{protocol.MethodExec, protocol.ExecParams{Name: "x"}, jsonrpc2.CodeInvalidParams, "non-empty argv"},
		{protocol.MethodStop, protocol.NameParams{Name: "ghost"}, protocol.CodeNotFound, "no sandbox named ghost"},
		{protocol.MethodRemove, protocol.NameParams{Name: "../../etc"}, protocol.CodeNotFound, "no such sandbox"},
		{protocol.MethodExec, protocol.ExecParams{Name: "ghost", Argv: []string{"id"}}, protocol.CodeNotFound, "no sandbox named ghost"},
		{protocol.MethodSSHHost, protocol.NameParams{Name: "ghost.airlock"}, protocol.CodeNotFound, "no sandbox named ghost"},
		{protocol.MethodUp, protocol.UpParams{ConfigPath: "relative/sandbox.hcl"}, protocol.CodeFailed, "absolute"},
		{protocol.MethodUp, protocol.UpParams{ConfigPath: "/dev/zero"}, protocol.CodeFailed, "not a regular file"},
		{protocol.MethodPlanShow, protocol.PlanParams{ConfigPath: "/nonexistent/sandbox.hcl"}, protocol.CodeFailed, "cannot read"},
		{protocol.MethodApprove, protocol.ApproveParams{ConfigPath: "/nonexistent/x.hcl", SHA256: strings.Repeat("0", 64)}, protocol.CodeFailed, "cannot read"},
	}
	for _, tc := range cases {
		err := c.Call(ctx, tc.method, tc.params, nil)
		code, msg := rpcCode(t, err)
		if code != tc.code || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s %v: got (%d, %q), want (%d, ~%q)", tc.method, tc.params, code, msg, tc.code, tc.msg)
		}
	}
	var l protocol.ListResult
	if err := c.Call(ctx, protocol.MethodList, nil, &l); err != nil || len(l.Sandboxes) != 0 {
		t.Fatalf("list: %v %v", l, err)
	}
}

// TestPlanApproval: the approval is pinned to the file hash the user saw.
func TestPlanApproval(t *testing.T) {
	d, c := newTestDaemon(t)
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "sandbox.hcl")
	os.WriteFile(file, []byte("sandbox \"dev\" {\n  backend = \"namespace\"\n}\n"), 0o644)
	var plan protocol.PlanResult
	if err := c.Call(ctx, protocol.MethodPlanShow, protocol.PlanParams{ConfigPath: file}, &plan); err != nil {
		t.Fatal(err)
	}
	if plan.Approved || plan.Name != "dev" || len(plan.SHA256) != 64 || !strings.Contains(plan.Text, plan.SHA256) {
		t.Fatalf("plan: %+v", plan)
	}
	// up without approval is refused with CodeNeedApproval.
	code, _ := rpcCode(t, c.Call(ctx, protocol.MethodUp, protocol.UpParams{ConfigPath: file}, nil))
	if code != protocol.CodeNeedApproval {
		t.Fatalf("up unapproved: code %d", code)
	}
	// A changed file cannot be approved with the old hash.
	os.WriteFile(file, []byte("sandbox \"dev\" {\n  backend = \"namespace\"\n  cpus = 1\n}\n"), 0o644)
	code, _ = rpcCode(t, c.Call(ctx, protocol.MethodApprove, protocol.ApproveParams{ConfigPath: file, SHA256: plan.SHA256}, nil))
	if code != protocol.CodeDenied {
		t.Fatalf("stale approve: code %d", code)
	}
	if d.p.approved(plan.SHA256) {
		t.Fatal("stale hash got approved")
	}
	var plan2 protocol.PlanResult
	c.Call(ctx, protocol.MethodPlanShow, protocol.PlanParams{ConfigPath: file}, &plan2)
	if err := c.Call(ctx, protocol.MethodApprove, protocol.ApproveParams{ConfigPath: file, SHA256: plan2.SHA256}, nil); err != nil {
		t.Fatal(err)
	}
	c.Call(ctx, protocol.MethodPlanShow, protocol.PlanParams{ConfigPath: file}, &plan2)
	if !plan2.Approved {
		t.Fatal("approval not remembered")
	}
}

func TestSubscribeGetsNotifications(t *testing.T) {
	d, c := newTestDaemon(t)
	got := make(chan string, 1)
	c.OnNotify(func(m string, p json.RawMessage) { got <- m + " " + string(p) })
	if err := c.Call(context.Background(), protocol.MethodSubscribe, nil, nil); err != nil {
		t.Fatal(err)
	}
	d.Notify(protocol.NotifyChanged, protocol.ChangedParams{Name: "x", State: "running"})
	select {
	case m := <-got:
		if m != `sandbox.changed {"name":"x","state":"running"}` {
			t.Fatalf("got %s", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notification")
	}
}

func TestSSHConfigRendering(t *testing.T) {
	_, pub, err := newEd25519PEM("x")
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(renderSSHConfig("/h o/me", "/bin/air%lock", []hostEntry{{Name: "dev", User: "agent", Key: pub}}))
	for _, want := range []string{
		"Host dev.airlock\n",
		"ProxyCommand env AIRLOCK_HOME='/h o/me' '/bin/air%%lock' ssh-proxy dev\n",
		"HostKeyAlias dev.airlock\n", "StrictHostKeyChecking yes\n", "IdentitiesOnly yes\n",
		"UserKnownHostsFile \"/h o/me/ssh/known_hosts\"\n", "ForwardAgent no\n", "ServerAliveInterval 15\n", "User agent\n",
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %q:\n%s", want, cfg)
		}
	}
	kh := string(renderKnownHosts([]hostEntry{{Name: "dev", Key: pub}}))
	if !strings.HasPrefix(kh, "dev.airlock ssh-ed25519 ") {
		t.Errorf("known_hosts: %q", kh)
	}
}

// FuzzHandle: arbitrary params to every method never panic and always
// yield either a result or a *jsonrpc2.Error with a non-empty message.
func FuzzHandle(f *testing.F) {
	methods := []string{protocol.MethodUp, protocol.MethodList, protocol.MethodStop, protocol.MethodStart,
		protocol.MethodRemove, protocol.MethodExec, protocol.MethodPorts, protocol.MethodSSHHost,
		protocol.MethodPlanShow, protocol.MethodApprove, "nope"}
	for i := range methods {
		f.Add(uint8(i), []byte(`{"name":"dev"}`))
		f.Add(uint8(i), []byte(`{"configPath":"/etc/passwd","vars":{"a":"b"},"approve":true}`))
		f.Add(uint8(i), []byte(`null`))
		f.Add(uint8(i), []byte(`{"argv":["a"],"name":"../x"}`))
	}
	d, err := New(Options{Home: f.TempDir(), Self: "/bin/airlock"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, m uint8, params []byte) {
		method := methods[int(m)%len(methods)]
		raw := json.RawMessage(params)
		req := &jsonrpc2.Request{Method: method, Params: &raw}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		res, err := d.handle(ctx, nil, req)
		if err != nil {
			var je *jsonrpc2.Error
			if !errors.As(err, &je) || je.Message == "" {
				t.Fatalf("%s %q: bad error %T %v", method, params, err, err)
			}
			if strings.Contains(je.Message, "internal error") {
				t.Fatalf("%s %q: internal error reached the client", method, params)
			}
			return
		}
		if res == nil {
			t.Fatalf("%s %q: nil result without error", method, params)
		}
	})
}
