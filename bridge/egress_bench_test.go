package bridge_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/internal/egress"
)

// BenchmarkEgressInSandbox measures the egress path end to end, side by
// side in one run: curl inside a namespace sandbox through its proxy
// (127.0.0.1:3128, the SSH remote forward to the bridge) against the same
// curl on the host straight to the server (host) and through three
// anchors (egress_anchor_test.go): plain (two TCP relays, no crypto),
// bare-ssh (the same over one SSH connection of the same x/crypto fork,
// its listening side a process of its own as the sandbox's sshd is: the
// least any SSH hop costs) and bare-mitm (bare-ssh whose far end also
// terminates TLS and opens its own upstream: the least an intercepting
// hop costs). The server is HTTPS on loopback (127.0.0.2); every request
// is a new connection (TCP, TLS, GET, as curl reports time_total).
// tun.test is tunnelled (CONNECT spliced through), mitm.test has a
// credential and is intercepted (TLS to the proxy, a second TLS
// upstream). Then 64 MiB downloads and uploads (PUT), median of 5, as
// ratios of the host's, plain's and bare-ssh's, with the CPU time each
// process on the path took per MiB (curl's from bash's time, the others'
// from /proc). The modes take turns one request at a time. Printed to
// stdout (testing keeps 10 lines of a benchmark's log). Run with
// -benchtime=1x:
//
//	go test ./bridge -run XXX -bench EgressInSandbox -benchtime=1x
//
// The floor (2-core VM, other jobs at load ~5; CPU ms per MiB of a
// download, from runs like the one below; each moves by ~20% between runs
// and all rise with load):
//
//	host         1.6 = curl 1.05 + server 0.6
//	plain        3.1 : two extra loopback hops, no crypto: +1.4
//	bare-ssh     4.6 : the SSH hop's two ends 1.3 + 1.7 = 3.0 (AES-GCM
//	                   seal 0.48 + open 0.25 of it; the rest is two kernel
//	                   copies per socket, a user-space copy per side,
//	                   syscalls and goroutine wake-ups per packet)
//	bare-mitm    4.6-5.3 : + a TLS open and seal at the far end
//	tunnelled    5.1 (bridge 1.7, agent 1.8) before relays copied whole
//	             channel packets, 4.3-5.4 (bridge 1.2-1.6) after
//	intercepted  5.5-5.7 : bridge 2.2-2.4, agent 1.7
//
// Upload costs about the same per side. On two cores, at best both busy
// all the time, a path that takes C ms of CPU per MiB moves at most 2/C
// MiB per ms; curl alone (single-threaded, ~1.05 ms/MiB) caps the host at
// ~1/1.05. So bare-ssh is capped at 2/4.6 against 1/1.05, 0.46x of the
// host with no load at all, and when the machine is saturated (load above
// 2) speed goes as 1/C: 1.6/4.6 = 0.35x, which is what bare-ssh measures
// (0.35-0.55x). 0.8x tunnelled would need the whole SSH hop at or under
// 1.0 ms/MiB (0.4 on a busy machine) against 3.0 measured, barely more
// than its crypto plus one copy per side; 0.5x intercepted would need the
// hop plus the second TLS at or under 2.6 (1.6 busy) against 3.0-3.7
// (bare-mitm measures 0.3-0.45x). Neither goal is reachable on this
// machine with an encrypted SSH hop; what is ours is the distance to
// bare-ssh and bare-mitm, which this benchmark reports.
func BenchmarkEgressInSandbox(b *testing.B) {
	const samples, bulkN = 100, 5
	env := egressBenchSandbox(b)
	modes := egressBenchModes(b, env)
	for _, m := range modes {
		m.curl(b, "", "", "speed_download") // warm up: proxy built, names resolved, caches filled
	}
	lat := make([][]float64, len(modes))
	for r := 0; r < samples; r++ {
		for k, m := range modes {
			s, _, _ := m.curl(b, "", "", "speed_download")
			lat[k] = append(lat[k], s)
		}
	}
	down, up := make([]bulkRuns, len(modes)), make([]bulkRuns, len(modes))
	for r := 0; r < bulkN; r++ {
		for k, m := range modes {
			down[k].add(b, env, m, "", "?bytes="+strconv.Itoa(benchBulk), "speed_download")
			up[k].add(b, env, m, "-T "+m.upFile+" -H 'Expect:'", "", "speed_upload")
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	reportEgressBench(b, modes, lat, down, up, fmt.Sprintf("new connection + GET, n=%d each; 64 MiB down (GET) and up (PUT), median of %d; load %s",
		samples, bulkN, strings.Join(strings.Fields(string(load))[:3], " ")))
}

// bulkRuns are one mode's bulk transfers in one direction: the speed of
// each and the CPU time each process on the path spent, summed.
type bulkRuns struct {
	speed []float64
	cpu   cpuTimes
}

// cpuTimes is CPU seconds by process: curl, this process (the server and
// the anchors' bridge side), the bridge, the guest's sshd (the sandbox's
// agent, or bare-ssh's child).
type cpuTimes struct{ curl, bench, bridge, agent float64 }

func (r *bulkRuns) add(tb testing.TB, env *egressBench, m benchMode, extra, query, field string) {
	before := env.cpu(m.guest)
	_, v, curlCPU := m.curl(tb, extra, query, field)
	after := env.cpu(m.guest)
	r.speed = append(r.speed, v)
	r.cpu.curl += curlCPU
	r.cpu.bench += after.bench - before.bench
	r.cpu.bridge += after.bridge - before.bridge
	r.cpu.agent += after.agent - before.agent
}

// cpu reads the CPU time of this process, the bridge and the guest's
// sshd (the sandbox's or an anchor's).
func (env *egressBench) cpu(guest int) cpuTimes {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return cpuTimes{bench: tv(ru.Utime) + tv(ru.Stime), bridge: procCPU(env.h.BridgePID()).Seconds(), agent: procCPU(guest).Seconds()}
}

const benchBulk = 64 << 20

// benchMode is one way of reaching the server: curl in sh with args.
type benchMode struct {
	name   string
	sh     *shell
	args   string // --cacert and --resolve
	url    string // up to and including the path's "/"
	upFile string // benchBulk bytes to PUT, as the shell sees it
	guest  int    // pid of the process in the guest sshd's role, if any
	log    func() string
}

// curl runs one curl and returns its time_total, the given -w field and
// the CPU time curl took (user+system, bash's time).
func (m benchMode) curl(tb testing.TB, extra, query, field string) (secs, v, cpu float64) {
	tb.Helper()
	out := m.sh.run(tb, fmt.Sprintf("{ time curl -sS -o /dev/null -w '%%{time_total} %%{%s} ' %s %s '%s%s' 2>/dev/null || echo -n 'FAIL '; } 2>&1", field, m.args, extra, m.url, query))
	f := strings.Fields(out)
	if len(f) != 4 {
		tb.Fatalf("%s: curl %s %s: %q\n%s", m.name, extra, query, out, m.log())
	}
	secs, _ = strconv.ParseFloat(f[0], 64)
	v, _ = strconv.ParseFloat(f[1], 64)
	u, _ := strconv.ParseFloat(f[2], 64)
	s, _ := strconv.ParseFloat(f[3], 64)
	return secs, v, u + s
}

// egressBenchModes starts the two shells, the anchors and the files to
// upload, and returns the modes in the order they take turns.
func egressBenchModes(b *testing.B, env *egressBench) []benchMode {
	h, name, port := env.h, env.name, env.port
	// Every mode verifies the server against the one CA that signs its
	// certificate: host, the anchors and tunnelled the upstream CA,
	// intercepted the sandbox CA (the proxy's leaf). Not curl's default
	// bundle: OpenSSL 3 takes tens of milliseconds to load one (about 140
	// certificates; as much on the host as inside), which would drown what
	// is measured here, and -k on one side only would measure bundle loading.
	hostCA := filepath.Join(h.Home(), "bench-roots.pem")
	hostUp := filepath.Join(b.TempDir(), "bulk")
	if err := os.WriteFile(hostUp, make([]byte, benchBulk), 0o600); err != nil {
		b.Fatal(err)
	}
	setup := fmt.Sprintf("printf '%%b\\n' %q > /tmp/bench-ca.pem && head -c %d /dev/zero > /tmp/bench-bulk", env.ca.CertPEM(), benchBulk)
	if _, e, code := h.Exec(b, name, "bash", "-c", setup); code != 0 {
		b.Fatalf("CA and bulk file in the sandbox: %s", e)
	}
	// Two shells stay open for the whole run, one on the host and one in
	// the sandbox (`airlock exec -i`), and the modes take turns one
	// request at a time, so a change in the machine's load hits all alike.
	// Each curl prints its own time_total and speed: process starts are
	// outside the numbers.
	hostSh := startShell(b, exec.Command("bash"), []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent"})
	inSh := startShell(b, exec.Command(filepath.Join(h.Bin(), "airlock"), "exec", "-i", name, "--", "bash"), h.Env())
	for _, sh := range []*shell{hostSh, inSh} {
		sh.run(b, "TIMEFORMAT='%3U %3S'; echo ok")
	}
	agent := agentPID(b, h.Home())
	roots := x509.NewCertPool()
	roots.AddCert(env.ca.Certificate())
	mitmCfg := &tls.Config{GetCertificate: func(hi *tls.ClientHelloInfo) (*tls.Certificate, error) { return env.ca.Leaf(hi.ServerName) }}
	upstream := "127.0.0.2:" + port
	viaHost := func(name, addr string, guest int) benchMode {
		_, p, _ := net.SplitHostPort(addr)
		ip, _, _ := net.SplitHostPort(addr)
		return benchMode{name: name, sh: hostSh, args: fmt.Sprintf("--cacert %s --resolve tun.test:%s:%s", hostCA, p, ip),
			url: "https://tun.test:" + p + "/", upFile: hostUp, guest: guest, log: func() string { return "" }}
	}
	bridgeLog := func() string { return tail(h.BridgeLog(), 20) }
	sshAddr, sshPID := bareSSHRelay(b, upstream, nil, nil)
	mitmAddr, mitmPID := bareSSHRelay(b, upstream, mitmCfg, roots)
	return []benchMode{
		viaHost("host", upstream, 0),
		viaHost("plain", plainRelay(b, upstream), 0),
		viaHost("bare-ssh", sshAddr, sshPID),
		viaHost("bare-mitm", mitmAddr, mitmPID),
		{name: "tunnelled", sh: inSh, args: "--cacert /tmp/bench-ca.pem", url: "https://tun.test:" + port + "/",
			upFile: "/tmp/bench-bulk", guest: agent, log: bridgeLog},
		{name: "intercepted", sh: inSh, args: "--cacert /etc/airlock/egress-ca.pem", url: "https://mitm.test:" + port + "/",
			upFile: "/tmp/bench-bulk", guest: agent, log: bridgeLog},
	}
}

// reportEgressBench logs a line per mode, with the CPU each process took
// per MiB (median speed; CPU summed over the runs), and the ratios that
// matter: the sandbox's modes against host, plain and bare-ssh,
// intercepted also against bare-mitm.
func reportEgressBench(b *testing.B, modes []benchMode, lat [][]float64, down, up []bulkRuns, title string) {
	q := func(v []float64, p int) float64 {
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		return s[len(s)*p/100]
	}
	ms := func(s float64) string { return fmt.Sprintf("%.1fms", s*1000) }
	idx := map[string]int{}
	for k, m := range modes {
		idx[m.name] = k
	}
	hp50 := q(lat[0], 50)
	// The table goes to stdout: testing keeps only 10 lines of a
	// benchmark's log.
	var out strings.Builder
	out.WriteString(title)
	logf := func(format string, args ...any) { fmt.Fprintf(&out, "\n"+format, args...) }
	perMiB := func(r bulkRuns) string {
		n := float64(len(r.speed)) * benchBulk / (1 << 20) / 1000 // MiB moved, s -> ms
		c := r.cpu
		return fmt.Sprintf("cpu ms/MiB %.2f = curl %.2f bench %.2f bridge %.2f guest %.2f",
			(c.curl+c.bench+c.bridge+c.agent)/n, c.curl/n, c.bench/n, c.bridge/n, c.agent/n)
	}
	for k, m := range modes {
		logf("%-11s p50 %s p90 %s (+%s over host)", m.name, ms(q(lat[k], 50)), ms(q(lat[k], 90)), ms(q(lat[k], 50)-hp50))
		for _, d := range []struct {
			dir  string
			runs []bulkRuns
		}{{"down", down}, {"up", up}} {
			sp := q(d.runs[k].speed, 50)
			logf("    %-4s %4.0f MB/s (%.2fx host) %s", d.dir, sp/1e6, sp/q(d.runs[0].speed, 50), perMiB(d.runs[k]))
		}
	}
	for _, m := range []string{"tunnelled", "intercepted"} {
		k := idx[m]
		b.ReportMetric((q(lat[k], 50)-hp50)*1000, m+"-added-ms")
		line := m + ":"
		for _, a := range []string{"host", "plain", "bare-ssh", "bare-mitm"} {
			if a == "bare-mitm" && m != "intercepted" {
				continue
			}
			d := q(down[k].speed, 50) / q(down[idx[a]].speed, 50)
			u := q(up[k].speed, 50) / q(up[idx[a]].speed, 50)
			line += fmt.Sprintf("  vs %s down %.2fx up %.2fx", a, d, u)
			if a == "host" {
				b.ReportMetric(d, m+"-throughput-x")
				b.ReportMetric(u, m+"-upload-x")
			} else {
				b.ReportMetric(d, m+"-vs-"+a+"-x")
			}
		}
		logf("%s", line)
	}
	fmt.Println(out.String())
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
// egressBench is the sandbox and server the benchmark runs against.
type egressBench struct {
	h          *bridgetest.Harness
	name, port string
	ca         *egress.CA // signs the server's certificates
}

// agentPID returns the pid of the one namespace sandbox's sshd under
// home: the child of its init (init.pid) that runs `init --serve`.
func agentPID(tb testing.TB, home string) int {
	var initPID int
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "init.pid" {
			b, _ := os.ReadFile(p)
			fmt.Sscan(string(b), &initPID)
		}
		return nil
	})
	kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", initPID, initPID))
	for _, k := range strings.Fields(string(kids)) {
		if cmd, _ := os.ReadFile("/proc/" + k + "/cmdline"); strings.Contains(string(cmd), "--serve") {
			pid, _ := strconv.Atoi(k)
			return pid
		}
	}
	tb.Fatalf("no sandbox sshd under %s (init pid %d)", home, initPID)
	return 0
}

func egressBenchSandbox(tb testing.TB) *egressBench {
	h := bridgetest.New(tb)
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
		if r.Method == http.MethodPut {
			io.Copy(io.Discard, r.Body)
			fmt.Fprint(w, "ok")
			return
		}
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
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	os.WriteFile(filepath.Join(h.Home(), "egress.hcl"), []byte(fmt.Sprintf(`roots = %q
hosts = {
  "tun.test"  = "127.0.0.2"
  "mitm.test" = "127.0.0.2"
}
`, rootsFile)), 0o600)
	if _, e, code := h.AirlockStdin(tb, "bench-secret\n", "secret", "set", "bench-token"); code != 0 {
		tb.Fatalf("secret set: %s", e)
	}
	name := h.Up(tb, `sandbox "egbench" {
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
	return &egressBench{h: h, name: name, port: port, ca: ca}
}
