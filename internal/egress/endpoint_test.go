package egress

import (
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// Approve rules hold a request however it spells the endpoint a server
// will read: path parameters, format suffixes, backslashes (raw and
// %5C), double encoding and method overrides are held; NUL and control
// characters are refused. Real loopback server, real proxy, raw requests.
func TestApproveRulesSeeServerSpellings(t *testing.T) {
	ap := &scriptedApprover{}
	e := newEnv(t, envOpts{allow: []string{"plain.test", "127.0.0.1"},
		approve: []string{"plain.test POST /repos/*/releases", "plain.test DELETE /repos/*"}, approver: ap.approve})
	up := &upstreamLog{}
	srv := httptest.NewServer(up.handler())
	t.Cleanup(srv.Close)
	e.resolver.m["plain.test"] = addrs("127.0.0.1")
	port := portOf(t, srv.URL)
	send := func(method, target, hdr, body string) string {
		t.Helper()
		ap.answers = []error{errors.New("denied")}
		n := len(ap.shown)
		resp := e.raw(t, method+" http://plain.test:"+port+target+" HTTP/1.1\r\nHost: plain.test:"+port+"\r\n"+hdr+
			"Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		resp.Body.Close()
		rule := resp.Header.Get("X-Airlock-Denied")
		if len(ap.shown) > n {
			return "held " + strings.Join(ap.shown[n].Overrides, ",")
		}
		return rule
	}
	for _, tc := range []struct {
		method, target, hdr, body, want string
	}{
		{"POST", "/repos/a/releases", "", "", "held "},
		{"POST", "/repos/a;jsessionid=1/releases", "", "", "held "},
		{"POST", "/repos/a/releases;x=1", "", "", "held "},
		{"POST", "/repos/a/releases.json", "", "", "held "},
		{"POST", "/repos/a/RELEASES.xml", "", "", "held "},
		{"POST", `/repos\a\releases`, "", "", "held "},
		{"POST", "/repos%5Ca%5Creleases", "", "", "held "},
		{"POST", "/repos/a%252Freleases", "", "", "held "},
		{"POST", "/repos/a/./x/../releases/", "", "", "held "},
		{"POST", "/repos/a/releases%00.txt", "", "", "approve-path-refused"},
		{"POST", "/repos/a/releases%2500", "", "", "approve-path-refused"},
		{"POST", "/repos/a/rel%0aeases", "", "", "approve-path-refused"},
		{"POST", "/repos/a", "X-HTTP-Method-Override: DELETE\r\n", "", "held DELETE"},
		{"POST", "/repos/a", "X-HTTP-Method: delete\r\n", "", "held DELETE"},
		{"POST", "/repos/a", "X-Method-Override: DELETE\r\n", "", "held DELETE"},
		{"POST", "/repos/a?_method=DELETE", "", "", "held DELETE"},
		{"POST", "/repos/a", "Content-Type: application/x-www-form-urlencoded\r\n", "x=1&_method=delete", "held DELETE"},
		{"POST", "/repos/a", "Content-Type: multipart/form-data; boundary=B\r\n",
			"--B\r\nContent-Disposition: form-data; name=\"_method\"\r\n\r\nDELETE\r\n--B--\r\n", "held DELETE"},
		// PHP/Symfony/Laravel and Rack spellings (override.go).
		{"POST", "/repos/a?.method=DELETE", "", "", "held DELETE"},
		{"POST", "/repos/a?+_method=DELETE", "", "", "held DELETE"},
		{"POST", "/repos/a?%5Fmethod=DELETE", "", "", "held DELETE"},
		{"POST", "/repos/a?x=1;_METHOD=delete", "", "", "held DELETE"},
		{"POST", "/repos/a?_method[]=DELETE", "", "", "held DELETE"},
		{"POST", "/repos/a?%zz&_method=DELETE", "", "", "held DELETE"},
		{"POST", "/repos/a", "Content-Type: application/x-www-form-urlencoded,x\r\n", ".method=DELETE", "held DELETE"},
		{"POST", "/repos/a", "Content-Type: text/plain\r\n", "a=1&_method=DELETE", "held DELETE"},
		{"POST", "/repos/a", "Content-Type: application/json\r\n", `{"x":1,"_method":"DELETE"}`, "held DELETE"},
		{"POST", "/repos/a", "Content-Type: application/json\r\n", `{"_method":"GET","_method":"DELETE"}`, "held GET,DELETE"},
		{"POST", "/repos/a", "", ` {"_method":"DELETE"}`, "held DELETE"},
		{"POST", "/repos/a", "Content-Type: application/json\r\n", `{"_method":["DELETE"]}`, "approve-method-override-refused"},
		{"POST", "/repos/a", "Content-Type: application/json\r\n", `{"_method":"DELETE"`, "approve-method-override-refused"},
		{"POST", "/repos/a", "Content-Type: multipart/form-data,x; boundary=B\r\n",
			"--B\r\nContent-Disposition: form-data; name=\".method\"\r\n\r\nDELETE\r\n--B--\r\n", "held DELETE"},
		{"POST", "/repos/a", "Content-Type: application/json\r\n", `{"payment_method":"card"}`, ""},
		{"POST", "/repos/a", "X-HTTP-Method-Override: DEL ETE\r\n", "", "approve-method-override-refused"},
		{"GET", "/repos/a/releases", "", "", ""},            // other method: not held
		{"POST", "/repos/a/b/c", "", "", ""},                // other path
		{"POST", "/repos/a", "X-Other: DELETE\r\n", "", ""}, // not an override header
	} {
		if got := send(tc.method, tc.target, tc.hdr, tc.body); got != tc.want {
			t.Errorf("%s %s %q: got %q, want %q", tc.method, tc.target, tc.hdr, got, tc.want)
		}
	}
	if got := up.list(); strings.Contains(got, "POST /repos/a/releases") || strings.Contains(got, "DELETE") {
		t.Errorf("a held or refused request reached the server:\n%s", got)
	}
}
