package bridge_test

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/internal/egress"
)

// BenchmarkEgressInSandbox measures the egress path end to end, side by
// side in one run: curl inside a namespace sandbox through its proxy
// (127.0.0.1:3128, the SSH remote forward to the bridge) against the same
// curl on the host straight to the server (the anchor). The server is
// HTTPS on loopback (127.0.0.2); every request is a new connection (TCP,
// TLS, GET, as curl reports time_total). tun.test is tunnelled (CONNECT
// spliced through), mitm.test has a credential and is intercepted (TLS
// to the proxy, a second TLS upstream). Then a 64 MiB download each way,
// throughput as a ratio of the host's. Rounds interleave the modes so
// other load hits them alike. Run with -benchtime=1x:
//
//	go test ./bridge -run XXX -bench EgressInSandbox -benchtime=1x
func BenchmarkEgressInSandbox(b *testing.B) {
	const rounds, perRound = 6, 10
	const bulk = 64 << 20
	h, name, port := egressBenchSandbox(b)

	// Every mode verifies the server against the one CA that signs its
	// certificate: host and tunnelled the upstream CA, intercepted the
	// sandbox CA (the proxy's leaf). Not curl's default bundle: OpenSSL 3
	// takes tens of milliseconds to load one (about 140 certificates; as
	// much on the host as inside), which would drown what is measured
	// here, and -k on one side only would measure bundle loading.
	upCA, err := os.ReadFile(filepath.Join(h.Home(), "bench-roots.pem"))
	if err != nil {
		b.Fatal(err)
	}
	hostCA := filepath.Join(h.Home(), "bench-roots.pem")
	if _, e, code := h.Exec(b, name, "bash", "-c", fmt.Sprintf("printf '%%b\\n' %q > /tmp/bench-ca.pem", upCA)); code != 0 {
		b.Fatalf("CA file in the sandbox: %s", e)
	}

	// Each curl prints time_total and speed_download; the loop runs in one
	// shell, so process start costs (exec, bash) are outside the numbers.
	loop := func(n int, args string) string {
		return fmt.Sprintf(`for i in $(seq %d); do curl -sS -o /dev/null -w '%%{time_total} %%{speed_download}\n' %s || exit 1; done`, n, args)
	}
	parse := func(out string) (secs, speeds []float64) {
		for _, ln := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(ln)
			if len(f) != 2 {
				b.Fatalf("curl output %q", out)
			}
			s, _ := strconv.ParseFloat(f[0], 64)
			v, _ := strconv.ParseFloat(f[1], 64)
			secs, speeds = append(secs, s), append(speeds, v)
		}
		return
	}
	host := func(n int, hostname, query string) (secs, speeds []float64) {
		cmdOut, err := runHostShell(loop(n, fmt.Sprintf("--cacert %s --resolve %s:%s:127.0.0.2 https://%s:%s/%s", hostCA, hostname, port, hostname, port, query)))
		if err != nil {
			b.Fatalf("host curl: %v: %s", err, cmdOut)
		}
		return parse(cmdOut)
	}
	inside := func(n int, hostname, query string) (secs, speeds []float64) {
		flag := "--cacert /tmp/bench-ca.pem"
		if hostname == "mitm.test" {
			flag = "--cacert /etc/airlock/egress-ca.pem"
		}
		out, e, code := h.Exec(b, name, "bash", "-c", loop(n, fmt.Sprintf("%s https://%s:%s/%s", flag, hostname, port, query)))
		if code != 0 {
			b.Fatalf("sandbox curl: %d %s\n%s", code, e, tail(h.BridgeLog(), 20))
		}
		return parse(out)
	}

	modes := []struct {
		name string
		run  func(n int, query string) ([]float64, []float64)
	}{
		{"host", func(n int, q string) ([]float64, []float64) { return host(n, "tun.test", q) }},
		{"tunnelled", func(n int, q string) ([]float64, []float64) { return inside(n, "tun.test", q) }},
		{"intercepted", func(n int, q string) ([]float64, []float64) { return inside(n, "mitm.test", q) }},
	}
	for _, m := range modes {
		m.run(2, "") // warm up: proxy built, names resolved, caches filled
	}
	lat := make([][]float64, len(modes))
	speed := make([][]float64, len(modes))
	for r := 0; r < rounds; r++ {
		for k, m := range modes {
			s, _ := m.run(perRound, "")
			lat[k] = append(lat[k], s...)
		}
	}
	for r := 0; r < 3; r++ {
		for k, m := range modes {
			_, v := m.run(1, "?bytes="+strconv.Itoa(bulk))
			speed[k] = append(speed[k], v...)
		}
	}
	q := func(v []float64, p int) float64 {
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		return s[len(s)*p/100]
	}
	ms := func(s float64) string { return fmt.Sprintf("%.1fms", s*1000) }
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("new connection + GET, n=%d each, load %s", rounds*perRound, strings.Join(strings.Fields(string(load))[:3], " "))
	hp50 := q(lat[0], 50)
	hs := q(speed[0], 50)
	for k, m := range modes {
		p50, p90 := q(lat[k], 50), q(lat[k], 90)
		sp := q(speed[k], 50)
		b.Logf("%-11s p50 %s p90 %s (+%s over host) | 64 MiB %.0f MB/s (%.2fx host)",
			m.name, ms(p50), ms(p90), ms(p50-hp50), sp/1e6, sp/hs)
		if k > 0 {
			b.ReportMetric((p50-hp50)*1000, m.name+"-added-ms")
			b.ReportMetric(sp/hs, m.name+"-throughput-x")
		}
	}
}

// runHostShell runs script with bash on the host, without the caller's
// environment (no proxy variables).
func runHostShell(script string) (string, error) {
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent"}
	out, err := cmd.Output()
	return string(out), err
}

// egressBenchSandbox starts a bridge, an HTTPS server on 127.0.0.2 and a
// sandbox whose proxy tunnels tun.test and intercepts mitm.test (both that
// server); it returns the harness, the sandbox's name and the port.
func egressBenchSandbox(tb testing.TB) (h *bridgetest.Harness, name, port string) {
	h = bridgetest.New(tb)
	ca, err := egress.LoadOrCreateCA(tb.TempDir(), "upstream bench CA", nil)
	if err != nil {
		tb.Fatal(err)
	}
	rootsFile := filepath.Join(h.Home(), "bench-roots.pem")
	os.WriteFile(rootsFile, ca.CertPEM(), 0o600)
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		tb.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	chunk := make([]byte, 1<<20)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n, _ := strconv.Atoi(r.URL.Query().Get("bytes")); n > 0 {
			w.Header().Set("Content-Length", strconv.Itoa(n))
			for n > 0 {
				k := min(n, len(chunk))
				w.Write(chunk[:k])
				n -= k
			}
			return
		}
		fmt.Fprint(w, "ok")
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.TLS = &tls.Config{GetCertificate: func(hi *tls.ClientHelloInfo) (*tls.Certificate, error) { return ca.Leaf(hi.ServerName) }}
	srv.StartTLS()
	tb.Cleanup(srv.Close)
	port = strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	os.WriteFile(filepath.Join(h.Home(), "egress.hcl"), []byte(fmt.Sprintf(`roots = %q
hosts = {
  "tun.test"  = "127.0.0.2"
  "mitm.test" = "127.0.0.2"
}
`, rootsFile)), 0o600)
	if _, e, code := h.AirlockStdin(tb, "bench-secret\n", "secret", "set", "bench-token"); code != 0 {
		tb.Fatalf("secret set: %s", e)
	}
	name = h.Up(tb, `sandbox "egbench" {
  backend = "namespace"
  workspace {
    mode = "mountless"
  }
  network {
    preset = "locked-down"
    allow  = ["tun.test", "mitm.test", "127.0.0.2"]
  }
  credential "k" {
    secret = "bench-token"
    hosts  = ["mitm.test"]
    env    = "BENCH_TOKEN"
  }
}
`, tb.TempDir())

	return h, name, port
}
