//go:build linux

package namespace

import (
	"context"
	"fmt"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// BenchmarkLifecycle measures, per iteration (run it with -benchtime=20x):
//
//	up     Create + Start of a mountless sandbox until its sshd accepts
//	ssh    up plus an SSH handshake and `true` (the first command done)
//	stop   Stop (the PID namespace is gone)
//	start  Start of the stopped sandbox until its sshd accepts
//
// and, as the anchor measured in the same run, `/bin/true` started in the
// same namespaces (the floor any namespace sandbox pays). It reports
// medians and their ratio to the anchor.
func BenchmarkLifecycle(b *testing.B) {
	be := newBackend(b)
	o := options()
	ctx := context.Background()
	var up, ssh, stop, start, anchor []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = sysProcAttr(be.ids)
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		anchor = append(anchor, time.Since(t0))

		id := fmt.Sprintf("bench-%d", i)
		spec, keys := vmtest.NewSpec(b, be, id, o)
		t0 = time.Now()
		if err := be.Create(ctx, spec); err != nil {
			b.Fatal(err)
		}
		if err := be.Start(ctx, id); err != nil {
			b.Fatal(err)
		}
		up = append(up, time.Since(t0))
		cl := vmtest.Connect(b, be, id, keys)
		vmtest.MustExec(b, cl, "true")
		ssh = append(ssh, time.Since(t0))
		cl.Close()

		t0 = time.Now()
		if err := be.Stop(ctx, id); err != nil {
			b.Fatal(err)
		}
		stop = append(stop, time.Since(t0))
		t0 = time.Now()
		if err := be.Start(ctx, id); err != nil {
			b.Fatal(err)
		}
		start = append(start, time.Since(t0))
		if err := be.Remove(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
	a := median(anchor)
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"up", up}, {"ssh", ssh}, {"stop", stop}, {"start", start}, {"anchor", anchor}} {
		p := median(m.d)
		b.ReportMetric(float64(p.Microseconds())/1000, "ms-p50-"+m.name)
		if m.name != "anchor" {
			b.ReportMetric(float64(p)/float64(a), "x-anchor-"+m.name)
		}
	}
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
