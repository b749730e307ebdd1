package egress

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

const scrubSecret = "s3cr3t/Tok+en=val&ue"

// leaks reports whether s carries the secret raw, percent-decoded or inside
// any base64 run (standard or URL alphabet, with or without padding).
func leaks(s string) bool {
	if strings.Contains(s, scrubSecret) {
		return true
	}
	for _, line := range strings.Split(s, "\n") {
		sq := strings.ToLower(strings.ReplaceAll(line, " ", ""))
		for _, f := range []string{scrubSecret, hex.EncodeToString([]byte(scrubSecret)), reverse(scrubSecret)} {
			if strings.Contains(sq, strings.ToLower(f)) {
				return true
			}
		}
	}
	for _, d := range []string{lenientUnescape(s), lenientUnescape(strings.ReplaceAll(s, "+", "%2B"))} {
		if strings.Contains(d, scrubSecret) || strings.Contains(lenientUnescape(strings.ReplaceAll(d, "+", "%2B")), scrubSecret) {
			return true
		}
	}
	for _, run := range regexp.MustCompile(`[A-Za-z0-9+/_=-]{8,}`).FindAllString(s, -1) {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			if d, err := enc.DecodeString(strings.TrimRight(run, "=")); err == nil && strings.Contains(string(d), scrubSecret) {
				return true
			}
			if d, err := enc.DecodeString(run); err == nil && strings.Contains(string(d), scrubSecret) {
				return true
			}
		}
	}
	return false
}

// The injected secret never comes back to the sandbox in a response's
// status line, headers (Location included) or trailers, whatever form the
// server echoes it in; one case per form. A real HTTPS server echoes it
// through the real proxy.
func TestSecretNeverReturns(t *testing.T) {
	creds := []*Credential{
		{Name: "api", Secret: "tok", Hosts: []string{"api.test"}, Format: "Bearer %s", Placeholder: phA, Header: "Authorization"},
		{Name: "q", Secret: "tok", Hosts: []string{"api.test"}, Query: "key", Placeholder: phQ, Format: "%s"},
	}
	e := newEnv(t, envOpts{allow: []string{"api.test", "127.0.0.1"}, creds: creds, secrets: mapSecrets{"tok": scrubSecret}})
	b64 := base64.StdEncoding.EncodeToString
	echo := map[string]func(w http.ResponseWriter){
		"raw-header":    func(w http.ResponseWriter) { w.Header().Set("X-Echo", "got "+scrubSecret) },
		"query-encoded": func(w http.ResponseWriter) { w.Header().Set("X-Echo", url.QueryEscape(scrubSecret)) },
		"path-encoded":  func(w http.ResponseWriter) { w.Header().Set("X-Echo", url.PathEscape(scrubSecret)) },
		"lower-hex":     func(w http.ResponseWriter) { w.Header().Set("X-Echo", lowerHex(url.QueryEscape(scrubSecret))) },
		"base64":        func(w http.ResponseWriter) { w.Header().Set("X-Echo", b64([]byte(scrubSecret))) },
		"base64-url-raw": func(w http.ResponseWriter) {
			w.Header().Set("X-Echo", base64.RawURLEncoding.EncodeToString([]byte(scrubSecret)))
		},
		"basic":        func(w http.ResponseWriter) { w.Header().Set("X-Echo", "Basic "+b64([]byte("user:"+scrubSecret))) },
		"basic-offset": func(w http.ResponseWriter) { w.Header().Set("X-Echo", "Basic "+b64([]byte("ab:"+scrubSecret))) },
		"jwt-like": func(w http.ResponseWriter) {
			w.Header().Set("X-Echo", "x."+b64([]byte(`{"k":"`+scrubSecret+`"}`))+".y")
		},
		"location": func(w http.ResponseWriter) {
			w.Header().Set("Location", "https://elsewhere.test/cb?key="+url.QueryEscape(scrubSecret))
			w.WriteHeader(http.StatusFound)
		},
		// Re-encoded the ways frameworks build canonical URLs (outside attack egress/07).
		"location-python-quote": func(w http.ResponseWriter) {
			w.Header().Set("Location", "https://x.test/?key="+strings.NewReplacer("/", "/", "+", "%2B", "=", "%3D", "&", "%26").Replace(scrubSecret))
			w.WriteHeader(http.StatusMovedPermanently)
		},
		"mixed-case-escapes": func(w http.ResponseWriter) {
			w.Header().Set("X-Echo", strings.NewReplacer("/", "%2f", "+", "%2B", "=", "%3d", "&", "%26").Replace(scrubSecret))
		},
		"all-escaped": func(w http.ResponseWriter) {
			var b strings.Builder
			for i := 0; i < len(scrubSecret); i++ {
				fmt.Fprintf(&b, "%%%02x", scrubSecret[i])
			}
			w.Header().Set("X-Echo", "v="+b.String()+"&next=1")
		},
		"hex": func(w http.ResponseWriter) { w.Header().Set("X-Echo", hex.EncodeToString([]byte(scrubSecret))) },
		"hex-upper": func(w http.ResponseWriter) {
			w.Header().Set("X-Echo", strings.ToUpper(hex.EncodeToString([]byte(scrubSecret))))
		},
		"reversed": func(w http.ResponseWriter) { w.Header().Set("X-Echo", "x "+reverse(scrubSecret)) },
		"obs-fold": func(w http.ResponseWriter) {
			c, bw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer c.Close()
			fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\nX-Echo: %s\r\n %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", scrubSecret[:7], scrubSecret[7:])
			bw.Flush()
		},
		"double-encoded": func(w http.ResponseWriter) { w.Header().Set("X-Echo", url.QueryEscape(url.QueryEscape(scrubSecret))) },
		"cookie":         func(w http.ResponseWriter) { w.Header().Set("Set-Cookie", "s="+url.QueryEscape(scrubSecret)) },
		"trailer": func(w http.ResponseWriter) {
			w.Header().Set("Trailer", "X-Trail")
			w.WriteHeader(200)
			io.WriteString(w, "body")
			w.(http.Flusher).Flush()
			w.Header().Set("X-Trail", "Basic "+b64([]byte("u:"+scrubSecret)))
		},
		"trailer-raw": func(w http.ResponseWriter) {
			w.Header().Set("Trailer", "X-Trail")
			w.WriteHeader(200)
			io.WriteString(w, "body")
			w.(http.Flusher).Flush()
			w.Header().Set("X-Trail", scrubSecret)
		},
		"reason-phrase": func(w http.ResponseWriter) {
			c, bw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer c.Close()
			fmt.Fprintf(bw, "HTTP/1.1 401 bad token %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", scrubSecret)
			bw.Flush()
		},
	}
	srv := e.upstreamTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f := echo[strings.TrimPrefix(r.URL.Path, "/")]; f != nil {
			f(w)
		}
	}), "api.test")
	e.resolver.m["api.test"] = addrs("127.0.0.1")
	c := e.client(e.sandboxRoots())
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for form := range echo {
		t.Run(form, func(t *testing.T) {
			req, _ := http.NewRequest("GET", "https://api.test:"+portOf(t, srv.URL)+"/"+form+"?key="+phQ, nil)
			req.Header.Set("Authorization", phA)
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.ReadAll(resp.Body)
			resp.Body.Close()
			var seen []string
			seen = append(seen, resp.Status)
			for _, h := range []http.Header{resp.Header, resp.Trailer} {
				for k, vs := range h {
					for _, v := range vs {
						seen = append(seen, k+": "+v)
					}
				}
			}
			all := strings.Join(seen, "\n")
			if leaks(all) {
				t.Errorf("the secret came back:\n%s", all)
			}
			if form != "reason-phrase" && !strings.Contains(all, "X-Echo") && !strings.Contains(all, "Location") &&
				!strings.Contains(all, "Set-Cookie") && !strings.Contains(all, "X-Trail") {
				t.Errorf("the echoing header is gone entirely (test setup?):\n%s", all)
			}
		})
	}
}
