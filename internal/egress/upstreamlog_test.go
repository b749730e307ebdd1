package egress

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
)

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A server that answers malformed bytes echoing the request's injected
// Authorization does not get the secret into the host's log (net/http's
// errors quote the bytes): outside attack egress/09. Real HTTPS server.
func TestUpstreamErrorsDoNotLogTheSecret(t *testing.T) {
	creds := []*Credential{{Name: "api", Secret: "tok", Hosts: []string{"api.test"}, Format: "Bearer %s", Placeholder: phA, Header: "Authorization"}}
	e := newEnv(t, envOpts{allow: []string{"api.test", "127.0.0.1"}, creds: creds, secrets: mapSecrets{"tok": scrubSecret}})
	var logBuf lockedBuf
	e.proxy.logger = slog.New(slog.NewTextHandler(&logBuf, nil))
	srv := e.upstreamTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, bw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		a := r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/badhdr":
			fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\n%s\r\n\r\n", a)
		case "/badlen":
			fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\nContent-Length: %s\r\n\r\n", a)
		case "/badstatus":
			fmt.Fprintf(bw, "HTTP/1.1 %s\r\n\r\n", a)
		}
		bw.Flush()
	}), "api.test")
	e.resolver.m["api.test"] = addrs("127.0.0.1")
	c := e.client(e.sandboxRoots())
	for _, p := range []string{"/badhdr", "/badlen", "/badstatus"} {
		req, _ := http.NewRequest("GET", "https://api.test:"+portOf(t, srv.URL)+p, nil)
		req.Header.Set("Authorization", phA)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("%s: %d, want 502", p, resp.StatusCode)
		}
	}
	log := logBuf.String()
	if !strings.Contains(log, "egress: upstream") {
		t.Fatalf("no upstream errors logged:\n%s", log)
	}
	if leaks(log) || strings.Contains(log, "s3cr3t") {
		t.Errorf("the secret is in the log:\n%s", log)
	}
}
