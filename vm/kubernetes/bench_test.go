package kubernetes

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/namespace"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// Benchmarks on the real test cluster (AIRLOCK_K8S_TEST=1 go test -run
// '^$' -bench . ./vm/kubernetes), each against the namespace backend on
// the same machine in the same run as the anchor:
//
//	BenchmarkUpToSSH   create+start until an SSH command answers, p50
//	BenchmarkExec      one `true` over an open SSH connection
//	BenchmarkScale30   30 sandboxes up at once: wall time, API requests and
//	                   bridge heap per sandbox; rm of all 30 leaves nothing

func namespaceBackend(b *testing.B) vm.Backend {
	nb, err := namespace.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := nb.Available(context.Background()); err != nil {
		b.Skipf("namespace backend (the anchor) unavailable: %v", err)
	}
	return nb
}

// upOnce creates and starts one sandbox and runs `true` in it; it returns
// the time that took and a cleanup.
func upOnce(b *testing.B, be vm.Backend, id string, tweak func(*vm.Spec)) (time.Duration, func()) {
	spec, keys := vmtest.NewSpec(b, be, id, vmtest.Options{AgentBinary: agentBin})
	if tweak != nil {
		tweak(&spec)
	}
	ctx := context.Background()
	start := time.Now()
	if err := be.Create(ctx, spec); err != nil {
		b.Fatal(err)
	}
	if err := be.Start(ctx, id); err != nil {
		b.Fatal(err)
	}
	cl := vmtest.Connect(b, be, id, keys)
	vmtest.MustExec(b, cl, "true")
	d := time.Since(start)
	return d, func() { cl.Close(); be.Remove(ctx, id) }
}

func p50(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func BenchmarkUpToSSH(b *testing.B) {
	k := newTestBackend(b, b.TempDir())
	nb := namespaceBackend(b)
	const n = 5
	var kd, nd []time.Duration
	for i := range n {
		d, done := upOnce(b, k, fmt.Sprintf("bench-up-%d", i), func(s *vm.Spec) { s.StateDir = filepath.Join(k.root, s.ID) })
		done()
		kd = append(kd, d)
		d, done = upOnce(b, nb, fmt.Sprintf("bench-up-%d", i), nil)
		done()
		nd = append(nd, d)
	}
	kp, np := p50(kd), p50(nd)
	b.ReportMetric(float64(kp.Milliseconds()), "k8s-up-p50-ms")
	b.ReportMetric(float64(np.Milliseconds()), "ns-up-p50-ms")
	b.ReportMetric(float64(kp)/float64(np), "k8s/ns")
	b.Logf("up -> SSH ready p50 over %d: kubernetes %v, namespace %v (%.1fx); load %s", n, kp, np, float64(kp)/float64(np), loadavg())
}

func BenchmarkExec(b *testing.B) {
	k := newTestBackend(b, b.TempDir())
	nb := namespaceBackend(b)
	measure := func(be vm.Backend, id string, tweak func(*vm.Spec)) time.Duration {
		spec, keys := vmtest.NewSpec(b, be, id, vmtest.Options{AgentBinary: agentBin})
		if tweak != nil {
			tweak(&spec)
		}
		vmtest.Up(b, be, spec, vmtest.Options{StartTimeout: 2 * time.Minute})
		cl := vmtest.Connect(b, be, id, keys)
		defer cl.Close()
		const n = 50
		var ds []time.Duration
		for range n {
			t0 := time.Now()
			vmtest.MustExec(b, cl, "true")
			ds = append(ds, time.Since(t0))
		}
		return p50(ds)
	}
	kp := measure(k, "bench-exec", func(s *vm.Spec) { s.StateDir = filepath.Join(k.root, s.ID) })
	np := measure(nb, "bench-exec", nil)
	b.ReportMetric(float64(kp.Microseconds()), "k8s-exec-p50-us")
	b.ReportMetric(float64(np.Microseconds()), "ns-exec-p50-us")
	b.ReportMetric(float64(kp)/float64(np), "k8s/ns")
	b.Logf("exec `true` p50: kubernetes (port-forward) %v, namespace %v (%.1fx); load %s", kp, np, float64(kp)/float64(np), loadavg())
}

// countingTransport counts requests to the API server.
type countingTransport struct {
	n    *atomic.Int64
	next http.RoundTripper
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

func BenchmarkScale30(b *testing.B) {
	c := needCluster(b)
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	var reqs atomic.Int64
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return countingTransport{&reqs, rt} }
	k, err := New(b.TempDir(), testSettings(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	const n = 30
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	ctx := context.Background()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	keys := make([]vmtest.Keys, n)
	for i := range n {
		spec, kk := vmtest.NewSpec(b, k, fmt.Sprintf("scale-%02d", i), vmtest.Options{AgentBinary: agentBin})
		spec.StateDir = filepath.Join(k.root, spec.ID)
		spec.MemoryBytes = 128 << 20
		spec.DiskBytes = 256 << 20
		keys[i] = kk
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := k.Create(ctx, spec); err != nil {
				errs <- err
				return
			}
			if err := k.Start(ctx, spec.ID); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	up := time.Since(start)
	close(errs)
	for err := range errs {
		b.Error(err)
	}
	upReqs := reqs.Load()
	runtime.ReadMemStats(&m1)
	for i := range n {
		cl := vmtest.Connect(b, k, fmt.Sprintf("scale-%02d", i), keys[i])
		vmtest.MustExec(b, cl, "true")
		cl.Close()
	}
	t0 := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := k.Remove(ctx, fmt.Sprintf("scale-%02d", i)); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
	rm := time.Since(t0)
	for i := range n {
		if left := leftovers(b, k, fmt.Sprintf("scale-%02d", i)); left != "" {
			b.Errorf("scale-%02d: rm left %s", i, left)
		}
	}
	b.ReportMetric(up.Seconds(), "up30-s")
	b.ReportMetric(float64(upReqs)/n, "api-req/sandbox")
	b.ReportMetric(float64(int64(m1.HeapInuse)-int64(m0.HeapInuse))/n/1024, "heap-KiB/sandbox")
	b.ReportMetric(rm.Seconds(), "rm30-s")
	b.Logf("30 sandboxes up at once in %v (%.1f API requests each to up, heap +%d KiB each), rm of all 30 in %v; load %s",
		up.Round(time.Millisecond), float64(upReqs)/n, (int64(m1.HeapInuse)-int64(m0.HeapInuse))/n/1024, rm.Round(time.Millisecond), loadavg())
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if len(b) > 14 {
		b = b[:14]
	}
	return string(b)
}
