package egress

import (
	"crypto/tls"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Approve rules hold by destination, not by spelling: the same server by
// IP literal (plain HTTP or intercepted HTTPS) or by another name that
// resolves to a held host's address is held like the name in the rule.
func TestApproveRulesHoldByDestination(t *testing.T) {
	ap := &scriptedApprover{}
	e := newEnv(t, envOpts{allow: []string{"api.test", "alias.test", "other.test", "127.0.0.1", "127.0.0.2"},
		approve: []string{"api.test POST /pay"}, approver: ap.approve})
	up := &upstreamLog{}
	plain := httptest.NewServer(up.handler())
	t.Cleanup(plain.Close)
	tlsSrv := e.upstreamTLS(t, up.handler(), "127.0.0.1")
	leaf, err := e.upCA.Leaf("127.0.0.1") // no SNI for an IP: the default certificate is served
	if err != nil {
		t.Fatal(err)
	}
	tlsSrv.TLS.Certificates = []tls.Certificate{*leaf}
	e.resolver.m["api.test"] = addrs("127.0.0.1")
	e.resolver.m["alias.test"] = addrs("127.0.0.1")
	e.resolver.m["other.test"] = addrs("127.0.0.2")
	port, tport := portOf(t, plain.URL), portOf(t, tlsSrv.URL)
	c := e.client(e.sandboxRoots())
	post := func(url string) (*http.Response, error) {
		ap.answers = []error{errors.New("denied")}
		return c.Post(url, "text/plain", strings.NewReader("pay-body"))
	}
	for url, via := range map[string]string{
		"http://127.0.0.1:" + port + "/pay":   "applied to the IP literal 127.0.0.1",
		"http://alias.test:" + port + "/pay":  "applied to alias.test, which has an address of api.test",
		"https://127.0.0.1:" + tport + "/pay": "applied to the IP literal 127.0.0.1",
	} {
		n := len(ap.shown)
		resp, err := post(url)
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		wantDenied(t, resp, 403, "approval-denied api.test POST /pay ("+via+")")
		if len(ap.shown) != n+1 || !strings.Contains(ap.shown[n].Rule, via) {
			t.Errorf("%s: prompt %+v", url, ap.shown[n:])
		}
	}
	// A name with other addresses is not held by a rule about api.test.
	n := len(ap.shown)
	resp, err := post("http://other.test:" + port + "/pay")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(ap.shown) != n {
		t.Errorf("other.test held: %+v", ap.shown[n:])
	}
	if strings.Contains(up.list(), "pay-body") {
		t.Errorf("a held request reached the server:\n%s", up.list())
	}
}
