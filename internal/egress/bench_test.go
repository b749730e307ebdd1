package egress

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"testing"
	"time"
)

// BenchmarkProxyOverhead measures, in one run, HTTPS requests to the same
// loopback server directly (the anchor) and through the proxy: latency of a
// request on a fresh connection (TCP + TLS + GET, p50/p90) for a tunnelled
// host and for an intercepted (credential-bound) host, latency on a kept-alive
// connection, and bulk download throughput. Run with -benchtime=1x:
//
//	go test ./internal/egress -run XXX -bench ProxyOverhead -benchtime=1x
func BenchmarkProxyOverhead(b *testing.B) {
	const samples = 300
	const bulk = 64 << 20
	creds := []*Credential{{Name: "k", Secret: "k", Hosts: []string{"mitm.test"}, Format: "Bearer %s", Placeholder: phA, Header: "Authorization"}}
	e := newEnv(b, envOpts{allow: []string{"bench.test", "mitm.test", "127.0.0.1"}, creds: creds, secrets: mapSecrets{"k": "secret"}})
	chunk := make([]byte, 1<<20)
	srv := e.upstreamTLS(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n, _ := strconv.Atoi(r.URL.Query().Get("bytes")); n > 0 {
			w.Header().Set("Content-Length", strconv.Itoa(n))
			for n > 0 {
				k := min(n, len(chunk))
				w.Write(chunk[:k])
				n -= k
			}
			return
		}
		io.WriteString(w, "ok")
	}), "bench.test")
	e.resolver.m["bench.test"] = addrs("127.0.0.1")
	e.resolver.m["mitm.test"] = addrs("127.0.0.1")
	port := portOf(b, srv.URL)
	both := e.upRoots.Clone()
	both.AddCert(e.sbCA.Certificate())

	// direct resolves the test names to the server, like the proxy does.
	mk := func(viaProxy, keepAlive bool) *http.Client {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: both}, DisableKeepAlives: !keepAlive, MaxIdleConnsPerHost: 4}
		if viaProxy {
			pu, _ := url.Parse("http://" + e.addr)
			tr.Proxy = http.ProxyURL(pu)
		} else {
			tr.DialContext = (&netDialer{addr: srv.Listener.Addr().String()}).dial
		}
		return &http.Client{Transport: tr, Timeout: 30 * time.Second}
	}
	get := func(c *http.Client, u string) {
		resp, err := c.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("%s: %d", u, resp.StatusCode)
		}
	}
	// Modes are measured interleaved (one sample of each in turn) so that
	// load from other processes hits them alike.
	pct := func(d []time.Duration, q int) time.Duration {
		d = append([]time.Duration(nil), d...)
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)*q/100]
	}
	lat := func(clients []*http.Client, urls []string) (p50, p90 []time.Duration) {
		d := make([][]time.Duration, len(clients))
		for k := range clients {
			get(clients[k], urls[k]) // warm up
		}
		for i := 0; i < samples; i++ {
			for k := range clients {
				t0 := time.Now()
				get(clients[k], urls[k])
				d[k] = append(d[k], time.Since(t0))
			}
		}
		for k := range d {
			p50, p90 = append(p50, pct(d[k], 50)), append(p90, pct(d[k], 90))
		}
		return p50, p90
	}
	tunnelURL := "https://bench.test:" + port + "/"
	mitmURL := "https://mitm.test:" + port + "/"
	urls := []string{tunnelURL, tunnelURL, mitmURL}
	b.ResetTimer()
	for b.Loop() {
		n50, n90 := lat([]*http.Client{mk(false, false), mk(true, false), mk(true, false)}, urls)
		k50, _ := lat([]*http.Client{mk(false, true), mk(true, true), mk(true, true)}, urls)
		dp50, dp90, tp50, tp90, mp50, mp90 := n50[0], n90[0], n50[1], n90[1], n50[2], n90[2]
		kd50, kt50, km50 := k50[0], k50[1], k50[2]
		const rounds = 5
		var thrs [3][]float64
		clients := []*http.Client{mk(false, true), mk(true, true), mk(true, true)}
		for k := range clients {
			get(clients[k], urls[k]+"?bytes=1048576")
		}
		for r := 0; r < rounds; r++ {
			for k := range clients {
				t0 := time.Now()
				get(clients[k], urls[k]+"?bytes="+strconv.Itoa(bulk))
				thrs[k] = append(thrs[k], float64(bulk)/time.Since(t0).Seconds()/(1<<20))
			}
		}
		med := func(v []float64) float64 { sort.Float64s(v); return v[len(v)/2] }
		dThr, tThr, mThr := med(thrs[0]), med(thrs[1]), med(thrs[2])
		us := func(d time.Duration) float64 { return float64(d.Microseconds()) }
		b.ReportMetric(us(tp50-dp50), "added-p50-µs/new-conn-tunnel")
		b.ReportMetric(us(mp50-dp50), "added-p50-µs/new-conn-intercept")
		b.ReportMetric(us(kt50-kd50), "added-p50-µs/keepalive-tunnel")
		b.ReportMetric(tThr/dThr, "throughput-ratio/tunnel")
		b.ReportMetric(mThr/dThr, "throughput-ratio/intercept")
		fmt.Printf("HTTPS via egress proxy vs direct (same loopback server, %d samples each):\n", samples)
		fmt.Printf("  new connection  direct p50 %6.0fµs p90 %6.0fµs | tunnel p50 %6.0fµs p90 %6.0fµs (+%.0fµs) | intercept p50 %6.0fµs p90 %6.0fµs (+%.0fµs)\n",
			us(dp50), us(dp90), us(tp50), us(tp90), us(tp50-dp50), us(mp50), us(mp90), us(mp50-dp50))
		fmt.Printf("  keep-alive      direct p50 %6.0fµs | tunnel p50 %6.0fµs (+%.0fµs) | intercept p50 %6.0fµs (+%.0fµs)\n",
			us(kd50), us(kt50), us(kt50-kd50), us(km50), us(km50-kd50))
		fmt.Printf("  throughput (median of 5 × %d MiB GET)  direct %.0f MiB/s | tunnel %.0f MiB/s (%.2fx) | intercept %.0f MiB/s (%.2fx)\n",
			bulk>>20, dThr, tThr, tThr/dThr, mThr, mThr/dThr)
	}
}

// netDialer dials one fixed address whatever name is asked for.
type netDialer struct{ addr string }

func (d *netDialer) dial(ctx context.Context, network, _ string) (net.Conn, error) {
	var nd net.Dialer
	return nd.DialContext(ctx, network, d.addr)
}
