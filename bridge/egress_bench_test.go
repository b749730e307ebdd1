package bridge_test

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
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
// throughput as a ratio of the host's (median of 5). The modes take turns
// one request at a time. Run with -benchtime=1x:
//
//	go test ./bridge -run XXX -bench EgressInSandbox -benchtime=1x
func BenchmarkEgressInSandbox(b *testing.B) {
	const samples, bulkRuns = 100, 5
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

	// Two shells stay open for the whole run, one on the host and one in
	// the sandbox (`airlock exec -i`), and the modes take turns one
	// request at a time, so a change in the machine's load hits all three
	// alike. Each curl prints its own time_total and speed_download:
	// process starts are outside the numbers.
	hostSh := startShell(b, exec.Command("bash"), []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent"})
	inSh := startShell(b, exec.Command(filepath.Join(h.Bin(), "airlock"), "exec", "-i", name, "--", "bash"), h.Env())
	curl := func(sh *shell, args string) (secs, speed float64) {
		out := sh.run(b, "curl -sS -o /dev/null -w '%{time_total} %{speed_download}\\n' "+args+" || echo FAIL")
		f := strings.Fields(out)
		if len(f) != 2 {
			b.Fatalf("curl %s: %q\n%s", args, out, tail(h.BridgeLog(), 20))
		}
		secs, _ = strconv.ParseFloat(f[0], 64)
		speed, _ = strconv.ParseFloat(f[1], 64)
		return secs, speed
	}
	modes := []struct {
		name string
		run  func(query string) (float64, float64)
	}{
		{"host", func(q string) (float64, float64) {
			return curl(hostSh, fmt.Sprintf("--cacert %s --resolve tun.test:%s:127.0.0.2 'https://tun.test:%s/%s'", hostCA, port, port, q))
		}},
		{"tunnelled", func(q string) (float64, float64) {
			return curl(inSh, fmt.Sprintf("--cacert /tmp/bench-ca.pem 'https://tun.test:%s/%s'", port, q))
		}},
		{"intercepted", func(q string) (float64, float64) {
			return curl(inSh, fmt.Sprintf("--cacert /etc/airlock/egress-ca.pem 'https://mitm.test:%s/%s'", port, q))
		}},
	}
	for _, m := range modes {
		m.run("") // warm up: proxy built, names resolved, caches filled
	}
	lat := make([][]float64, len(modes))
	speed := make([][]float64, len(modes))
	for r := 0; r < samples; r++ {
		for k, m := range modes {
			s, _ := m.run("")
			lat[k] = append(lat[k], s)
		}
	}
	for r := 0; r < bulkRuns; r++ {
		for k, m := range modes {
			_, v := m.run("?bytes=" + strconv.Itoa(bulk))
			speed[k] = append(speed[k], v)
		}
	}
	q := func(v []float64, p int) float64 {
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		return s[len(s)*p/100]
	}
	ms := func(s float64) string { return fmt.Sprintf("%.1fms", s*1000) }
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("new connection + GET, n=%d each; 64 MiB median of %d; load %s", samples, bulkRuns, strings.Join(strings.Fields(string(load))[:3], " "))
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

// shell is a bash reading commands from a pipe; run sends one command and
// reads the one line it prints.
type shell struct {
	in  io.WriteCloser
	out *bufio.Reader
}

func startShell(tb testing.TB, cmd *exec.Cmd, env []string) *shell {
	tb.Helper()
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { in.Close(); cmd.Wait() })
	return &shell{in: in, out: bufio.NewReader(out)}
}

func (s *shell) run(tb testing.TB, line string) string {
	tb.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		tb.Fatal(err)
	}
	l, err := s.out.ReadString('\n')
	if err != nil {
		tb.Fatalf("%s: %v", line, err)
	}
	return strings.TrimSpace(l)
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
