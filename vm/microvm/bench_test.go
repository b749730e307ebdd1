package microvm

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/sshd"
)

// BenchmarkMicroVM measures, under whatever accelerator KVMUsable picks
// (TCG here): up -> SSH-ready cold (fresh home: kernel fetch + test image
// build + create + boot, once) and warm (create + boot with caches) with
// the boot's phase breakdown, start (resume from the state stop saved),
// idle qemu RSS after boot and after resume, an exec round trip, and
// host<->guest throughput over SSH. Anchors in the same run: the namespace
// backend's up/start/idle memory, and the same embedded sshd (airlock-agent
// sshd) on the host's loopback. p50/p90 of AIRLOCK_BENCH_N runs (default
// 10); AIRLOCK_BENCH_COLD=1 adds the cold run.
//
//	go test ./vm/microvm -run '^$' -bench MicroVM -benchtime 1x
func BenchmarkMicroVM(b *testing.B) {
	home := vmTestEnv(b)
	n := 10
	if v, err := strconv.Atoi(os.Getenv("AIRLOCK_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	k := newKeys(b)
	for i := 0; i < b.N; i++ {
		if os.Getenv("AIRLOCK_BENCH_COLD") != "" {
			cold := b.TempDir()
			t0 := time.Now()
			if _, err := EnsureKernel(ctx, filepath.Join(cold, "cache"), nil); err != nil {
				b.Fatal(err)
			}
			if _, err := BuildImage(ctx, cold, testImageOptions, nil); err != nil {
				b.Fatal(err)
			}
			be := New(filepath.Join(cold, "vm"), cold)
			if err := be.Create(ctx, testSpec(b, k, "cold")); err != nil {
				b.Fatal(err)
			}
			if err := be.Start(ctx, "cold"); err != nil {
				b.Fatal(err)
			}
			fmt.Printf("up cold (kernel fetch + image build + boot): %v\n", time.Since(t0).Round(time.Millisecond))
			be.Remove(ctx, "cold")
		}

		root := b.TempDir()
		be := New(root, home)
		r := benchLifecycle(b, be, k, n)
		ns := benchNamespace(b, k, n)
		id := r.lastID
		conn, err := be.Dial(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		guest := sshClient(b, conn, k)
		anchor := hostSSHD(b, k)

		gExec, aExec := execRTT(b, guest, n), execRTT(b, anchor, n)
		// Bulk transfers are slow under TCG (the guest's SSH crypto is
		// emulated): 16 MiB, at most 3 runs.
		const size = 16 << 20
		nt := min(n, 3)
		gIn, aIn := upload(b, guest, size, nt), upload(b, anchor, size, nt)
		gOut, aOut := download(b, guest, size, nt), download(b, anchor, size, nt)
		st, _ := be.Status(ctx, id)
		be.Remove(ctx, id)

		fmt.Printf("microvm (%s), %d runs, 1 GiB guest; load average %s\n", st.Note, n, loadAvg())
		r.print(ns)
		fmt.Printf("  exec round trip (true)        %8v  anchor host sshd %v  ratio %.1fx\n", median(gExec).Round(time.Microsecond), median(aExec).Round(time.Microsecond), ratio(gExec, aExec))
		fmt.Printf("  host->guest 16 MiB            %6.1f MB/s  anchor %6.1f MB/s  ratio %.2f\n", mbps(size, gIn), mbps(size, aIn), mbps(size, gIn)/mbps(size, aIn))
		fmt.Printf("  guest->host 16 MiB            %6.1f MB/s  anchor %6.1f MB/s  ratio %.2f\n", mbps(size, gOut), mbps(size, aOut), mbps(size, gOut)/mbps(size, aOut))
		b.ReportMetric(median(r.up).Seconds(), "s/up-warm")
		b.ReportMetric(median(r.start).Seconds(), "s/start")
		b.ReportMetric(float64(median(gExec).Microseconds()), "µs/exec")
	}
}

func sshClient(tb testing.TB, conn net.Conn, k keys) *gossh.Client {
	cc, chans, reqs, err := gossh.NewClientConn(conn, "bench", &gossh.ClientConfig{
		User: "agent", Auth: []gossh.AuthMethod{gossh.PublicKeys(k.client)},
		HostKeyCallback: func(string, net.Addr, gossh.PublicKey) error { return nil },
	})
	if err != nil {
		tb.Fatal(err)
	}
	c := gossh.NewClient(cc, chans, reqs)
	tb.Cleanup(func() { c.Close() })
	return c
}

// hostSSHD serves the same embedded sshd (package sshd) in-process on the
// host's loopback with /bin/sh as the shell (bash would read the host
// user's .bashrc for SSH sessions, which measures that file): the anchor.
func hostSSHD(tb testing.TB, k keys) *gossh.Client {
	hk, err := gossh.ParsePrivateKey(k.hostPEM)
	if err != nil {
		tb.Fatal(err)
	}
	ak, _, _, _, err := gossh.ParseAuthorizedKey(k.authorized)
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := sshd.New(sshd.Config{HostKey: hk, AuthorizedKeys: []gossh.PublicKey{ak}, Shell: "/bin/sh",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		tb.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	go srv.Serve(l)
	tb.Cleanup(func() { srv.Close() })
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	return sshClient(tb, c, k)
}

func execRTT(tb testing.TB, c *gossh.Client, n int) []time.Duration {
	var out []time.Duration
	for i := 0; i < n; i++ {
		t0 := time.Now()
		s, err := c.NewSession()
		if err != nil {
			tb.Fatal(err)
		}
		if err := s.Run("true"); err != nil {
			tb.Fatal(err)
		}
		out = append(out, time.Since(t0))
	}
	return out
}

func upload(tb testing.TB, c *gossh.Client, size int64, n int) []time.Duration {
	var out []time.Duration
	for i := 0; i < n; i++ {
		s, err := c.NewSession()
		if err != nil {
			tb.Fatal(err)
		}
		s.Stdin = io.LimitReader(zeros{}, size)
		t0 := time.Now()
		if err := s.Run("cat > /tmp/airlock-bench && rm /tmp/airlock-bench"); err != nil {
			tb.Fatal(err)
		}
		out = append(out, time.Since(t0))
	}
	return out
}

func download(tb testing.TB, c *gossh.Client, size int64, n int) []time.Duration {
	var out []time.Duration
	for i := 0; i < n; i++ {
		s, err := c.NewSession()
		if err != nil {
			tb.Fatal(err)
		}
		var cnt countWriter
		s.Stdout = &cnt
		t0 := time.Now()
		if err := s.Run("head -c " + strconv.FormatInt(size, 10) + " /dev/zero"); err != nil {
			tb.Fatal(err)
		}
		out = append(out, time.Since(t0))
		if int64(cnt) != size {
			tb.Fatalf("downloaded %d bytes, want %d", cnt, size)
		}
	}
	return out
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ratio(a, b []time.Duration) float64 { return float64(median(a)) / float64(median(b)) }

func mbps(size int64, d []time.Duration) float64 { return float64(size) / 1e6 / median(d).Seconds() }
