package sshd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// BenchmarkVsOpenSSH runs `airlock-agent sshd` and OpenSSH's sshd (with its
// sftp-server) side by side on loopback, drives both with the same OpenSSH
// client and config, and prints time ratios ours/OpenSSH (lower is better).
// Runs alternate between the servers and the best of several runs counts,
// so that load from other processes hits both alike. Three cipher setups:
// the client's default choice (OpenSSH's client picks chacha20-poly1305 with
// both servers), and chacha20-poly1305 and aes128-gcm forced on both.
// `make bench` runs it (-benchtime 1x); one iteration takes several minutes.
//
//	latency:   ssh host true                                 (median of 11)
//	exec down: ssh host 'head -c 256M /dev/zero' > /dev/null (best of 3)
//	exec up:   head -c 256M /dev/urandom-file | ssh host 'cat >/dev/null'
//	sftp put / get of a 256 MiB file (sftp -b)
//	idle RSS of airlock-agent sshd, fresh and after the runs
//
// Targets: ratio <= 1.00 with the default cipher, <= 1.05 forced; idle RSS
// < 25 MB. AIRLOCK_BENCH_CIPHERS (comma-separated, "default" for none)
// narrows the setups.
func BenchmarkVsOpenSSH(b *testing.B) {
	for _, tool := range []string{"ssh", "sftp", "/usr/sbin/sshd", "/usr/lib/openssh/sftp-server"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s not installed", tool)
		}
	}
	for i := 0; i < b.N; i++ {
		benchVsOpenSSH(b)
	}
}

func benchVsOpenSSH(b *testing.B) {
	dir := b.TempDir()
	os.Chmod(dir, 0o755)
	_, hostPEM := newKey(b)
	client, clientPEM := newKey(b)
	hostKey := filepath.Join(dir, "host_key")
	clientKey := filepath.Join(dir, "id_ed25519")
	ak := filepath.Join(dir, "authorized_keys")
	os.WriteFile(hostKey, hostPEM, 0o600)
	os.WriteFile(clientKey, clientPEM, 0o600)
	os.WriteFile(ak, gossh.MarshalAuthorizedKey(client.PublicKey()), 0o644)
	hostSigner, err := LoadHostKey(hostKey)
	if err != nil {
		b.Fatal(err)
	}

	agent := filepath.Join(dir, "airlock-agent")
	build := exec.Command("go", "build", "-o", agent, "../cmd/airlock-agent")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build airlock-agent: %v\n%s", err, out)
	}
	ourPort, sshdPort := freePort(b), freePort(b)
	ours := startDaemon(b, agent, "sshd", "--listen", fmt.Sprintf("127.0.0.1:%d", ourPort),
		"--host-key", hostKey, "--authorized-keys", ak)

	sshdConfig := filepath.Join(dir, "sshd_config")
	os.WriteFile(sshdConfig, []byte(fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
AuthorizedKeysFile %s
PidFile none
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
Subsystem sftp /usr/lib/openssh/sftp-server
LogLevel ERROR
`, sshdPort, hostKey, ak)), 0o600)
	if os.Getuid() == 0 {
		os.MkdirAll("/run/sshd", 0o755) // sshd's privilege separation directory
	}
	startDaemon(b, "/usr/sbin/sshd", "-D", "-e", "-f", sshdConfig)
	for _, p := range []int{ourPort, sshdPort} {
		waitListening(b, "tcp", fmt.Sprintf("127.0.0.1:%d", p))
	}

	kh := filepath.Join(dir, "known_hosts")
	pub := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(hostSigner.PublicKey())))
	os.WriteFile(kh, []byte(fmt.Sprintf("[127.0.0.1]:%d %s\n[127.0.0.1]:%d %s\n", ourPort, pub, sshdPort, pub)), 0o600)
	writeConfig := func(cipher string) string {
		cfg := filepath.Join(dir, "ssh_config-"+cipher)
		var conf strings.Builder
		if cipher != "default" {
			fmt.Fprintf(&conf, "Ciphers %s\n", cipher)
		}
		for name, port := range map[string]int{"ours": ourPort, "openssh": sshdPort} {
			fmt.Fprintf(&conf, "Host %s\n  HostName 127.0.0.1\n  Port %d\n  IdentityFile %s\n  IdentitiesOnly yes\n"+
				"  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n  BatchMode yes\n  LogLevel ERROR\n"+
				"  ControlMaster no\n  ControlPath none\n", name, port, clientKey, kh)
		}
		os.WriteFile(cfg, []byte(conf.String()), 0o600)
		return cfg
	}
	ciphers := []string{"default", "chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com"}
	if v := os.Getenv("AIRLOCK_BENCH_CIPHERS"); v != "" {
		ciphers = strings.Split(v, ",")
	}

	time.Sleep(time.Second)
	rssFresh := rssKB(ours.Process.Pid)

	shm := "/dev/shm"
	if _, err := os.Stat(shm); err != nil {
		shm = dir
	}
	work, err := os.MkdirTemp(shm, "airlock-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(work)
	const size = 256 << 20
	src := filepath.Join(work, "src")
	if out, err := exec.Command("head", "-c", strconv.Itoa(size), "/dev/urandom").Output(); err != nil {
		b.Fatal(err)
	} else if err := os.WriteFile(src, out, 0o644); err != nil {
		b.Fatal(err)
	}
	ssh := func(cfg, host, stdinFile string, args ...string) func() {
		return func() {
			cmd := exec.Command("ssh", append([]string{"-F", cfg, host}, args...)...)
			if stdinFile != "" {
				f, err := os.Open(stdinFile)
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				cmd.Stdin = f
			}
			// Output goes straight to /dev/null: collecting 256 MiB in this
			// process would measure the harness, not the servers.
			devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer devnull.Close()
			var errb strings.Builder
			cmd.Stdout, cmd.Stderr = devnull, &errb
			if err := cmd.Run(); err != nil {
				b.Fatalf("ssh %s %v: %v %s", host, args, err, errb.String())
			}
		}
	}
	sftp := func(cfg, host, batch string) func() {
		return func() {
			cmd := exec.Command("sftp", "-F", cfg, "-b", "-", host)
			cmd.Stdin = strings.NewReader(batch)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("sftp %s: %v %s", host, err, out)
			}
		}
	}
	type result struct {
		cipher, name  string
		ours, openssh time.Duration
	}
	measure := func(cipher, name string, reps int, fastest bool, f func(host string) func()) result {
		var o, s []time.Duration
		for i := 0; i < reps; i++ {
			for _, h := range []string{"ours", "openssh"} {
				t0 := time.Now()
				f(h)()
				d := time.Since(t0)
				if h == "ours" {
					o = append(o, d)
				} else {
					s = append(s, d)
				}
			}
		}
		return result{cipher: cipher, name: name, ours: best(o, fastest), openssh: best(s, fastest)}
	}
	var results []result
	for _, cipher := range ciphers {
		cfg := writeConfig(cipher)
		results = append(results,
			measure(cipher, "ssh host true (median of 11)", 11, false, func(h string) func() { return ssh(cfg, h, "", "true") }),
			measure(cipher, "exec down 256 MiB (best of 3)", 3, true, func(h string) func() {
				return ssh(cfg, h, "", "head -c 268435456 /dev/zero")
			}),
			measure(cipher, "exec up 256 MiB (best of 3)", 3, true, func(h string) func() { return ssh(cfg, h, src, "cat >/dev/null") }),
			measure(cipher, "sftp put 256 MiB (best of 3)", 3, true, func(h string) func() {
				return sftp(cfg, h, fmt.Sprintf("put %s %s/put-%s\n", src, work, h))
			}),
			measure(cipher, "sftp get 256 MiB (best of 3)", 3, true, func(h string) func() {
				return sftp(cfg, h, fmt.Sprintf("get %s %s/get-%s\n", src, work, h))
			}),
		)
	}
	time.Sleep(3 * time.Second)
	rssAfter := rssKB(ours.Process.Pid)

	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\nairlock sshd vs OpenSSH 9.2 sshd (same OpenSSH client, loopback); load average %s\n", strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Printf("%-30s %-30s %10s %10s %7s %s\n", "cipher", "", "ours", "openssh", "ratio", "target (time ours/openssh)")
	for _, r := range results {
		ratio := r.ours.Seconds() / r.openssh.Seconds()
		target := 1.05
		cipherName := r.cipher
		if r.cipher == "default" {
			target = 1.00
			cipherName = "client default (chacha20)"
		}
		verdict := "ok"
		if ratio > target {
			verdict = "OVER"
		}
		fmt.Printf("%-30s %-30s %10s %10s %6.2fx <= %.2f %s\n", cipherName, r.name,
			r.ours.Round(time.Millisecond), r.openssh.Round(time.Millisecond), ratio, target, verdict)
		short := strings.SplitN(r.cipher, "@", 2)[0]
		f := strings.Fields(r.name)
		b.ReportMetric(ratio, short+"-"+f[0]+"-"+f[1]+"-time-ratio")
	}
	fmt.Printf("%-61s %7d kB (fresh) %7d kB (after the runs)   target < 25 MB\n", "idle RSS of airlock-agent sshd", rssFresh, rssAfter)
	b.ReportMetric(float64(rssAfter)/1024, "idle-RSS-MB")
}

// best is the median for latencies and the fastest run for throughput.
func best(ds []time.Duration, fastest bool) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if fastest {
		return s[0]
	}
	return s[len(s)/2]
}

func startDaemon(b *testing.B, path string, args ...string) *exec.Cmd {
	b.Helper()
	cmd := exec.Command(path, args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func rssKB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return -1
}
