package microvm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/vm/namespace"
)

// lifeResult holds one backend's lifecycle figures.
type lifeResult struct {
	up, start, stop []time.Duration
	rss, rssResumed []int64
	boot, resume    map[string][]time.Duration
	bootOrder       []string
	resumeOrder     []string
	lastID          string
}

const benchIdle = 5 * time.Second // idle time before an RSS sample

// benchLifecycle: n fresh sandboxes (create + boot to SSH, 1 GiB), idle RSS
// after each; then n stop/start cycles of the last one (save + resume).
func benchLifecycle(b *testing.B, be *Backend, k keys, n int) *lifeResult {
	ctx := context.Background()
	r := &lifeResult{boot: map[string][]time.Duration{}, resume: map[string][]time.Duration{}}
	for j := 0; j < n; j++ {
		id := "w" + strconv.Itoa(j)
		spec := testSpec(b, k, id)
		spec.MemoryBytes = 1 << 30
		t0 := time.Now()
		if err := be.Create(ctx, spec); err != nil {
			b.Fatal(err)
		}
		if err := be.Start(ctx, id); err != nil {
			b.Fatal(err)
		}
		r.up = append(r.up, time.Since(t0))
		r.bootOrder = addPhases(r.boot, r.bootOrder, be.LastPhases(id))
		time.Sleep(benchIdle)
		st, _ := be.Status(ctx, id)
		r.rss = append(r.rss, st.MemoryBytes)
		r.lastID = id
		if j < n-1 {
			be.Remove(ctx, id)
		}
	}
	for j := 0; j < n; j++ {
		t0 := time.Now()
		if err := be.Stop(ctx, r.lastID); err != nil {
			b.Fatal(err)
		}
		r.stop = append(r.stop, time.Since(t0))
		t0 = time.Now()
		if err := be.Start(ctx, r.lastID); err != nil {
			b.Fatal(err)
		}
		r.start = append(r.start, time.Since(t0))
		st, _ := be.Status(ctx, r.lastID)
		if !strings.Contains(st.Note, "resumed") {
			b.Fatalf("start did not resume: %s", st.Note)
		}
		r.resumeOrder = addPhases(r.resume, r.resumeOrder, be.LastPhases(r.lastID))
		time.Sleep(benchIdle)
		st, _ = be.Status(ctx, r.lastID)
		r.rssResumed = append(r.rssResumed, st.MemoryBytes)
	}
	return r
}

// benchNamespace is the anchor: the namespace backend's up, stop+start and
// idle memory (RSS of its whole process tree) in the same run.
func benchNamespace(b *testing.B, k keys, n int) *lifeResult {
	ctx := context.Background()
	nb, err := namespace.NewBackend(filepath.Join(b.TempDir(), "ns"))
	if err != nil || nb.Available(ctx) != nil {
		return nil
	}
	r := &lifeResult{}
	for j := 0; j < n; j++ {
		id := "n" + strconv.Itoa(j)
		spec := testSpec(b, k, id)
		spec.Image, spec.MemoryBytes = DefaultImage, 1<<30
		t0 := time.Now()
		if err := nb.Create(ctx, spec); err != nil {
			b.Fatal(err)
		}
		if err := nb.Start(ctx, id); err != nil {
			b.Fatal(err)
		}
		r.up = append(r.up, time.Since(t0))
		time.Sleep(time.Second)
		st, _ := nb.Status(ctx, id)
		r.rss = append(r.rss, treeRSS(st.PID))
		t0 = time.Now()
		nb.Stop(ctx, id)
		r.stop = append(r.stop, time.Since(t0))
		t0 = time.Now()
		if err := nb.Start(ctx, id); err != nil {
			b.Fatal(err)
		}
		r.start = append(r.start, time.Since(t0))
		nb.Remove(ctx, id)
	}
	return r
}

func addPhases(m map[string][]time.Duration, order []string, p Phases) []string {
	for _, ph := range p {
		if _, ok := m[ph.Name]; !ok {
			order = append(order, ph.Name)
		}
		m[ph.Name] = append(m[ph.Name], ph.Dur)
	}
	return order
}

func (r *lifeResult) print(ns *lifeResult) {
	d := func(x []time.Duration) string {
		return fmt.Sprintf("p50 %7v p90 %7v", pct(x, 50).Round(time.Millisecond), pct(x, 90).Round(time.Millisecond))
	}
	m := func(x []int64) string {
		return fmt.Sprintf("p50 %4d MB p90 %4d MB", pctI(x, 50)>>20, pctI(x, 90)>>20)
	}
	fmt.Printf("  up (create+boot to SSH)   %s\n", d(r.up))
	fmt.Printf("  stop (save state)         %s\n", d(r.stop))
	fmt.Printf("  start (resume to SSH)     %s\n", d(r.start))
	fmt.Printf("  idle qemu RSS after boot  %s\n", m(r.rss))
	fmt.Printf("  idle qemu RSS after start %s\n", m(r.rssResumed))
	if ns != nil {
		fmt.Printf("  namespace up              %s  (microvm/namespace p50 %.0fx)\n", d(ns.up), ratio(r.up, ns.up))
		fmt.Printf("  namespace stop            %s\n", d(ns.stop))
		fmt.Printf("  namespace start           %s  (microvm/namespace p50 %.0fx)\n", d(ns.start), ratio(r.start, ns.start))
		fmt.Printf("  namespace idle RSS (tree) %s\n", m(ns.rss))
	}
	for _, x := range []struct {
		name  string
		m     map[string][]time.Duration
		order []string
	}{{"boot phases (p50)", r.boot, r.bootOrder}, {"resume phases (p50)", r.resume, r.resumeOrder}} {
		var parts []string
		for _, n := range x.order {
			parts = append(parts, fmt.Sprintf("%s %v", n, pct(x.m[n], 50).Round(10*time.Millisecond)))
		}
		fmt.Printf("  %-25s %s\n", x.name, strings.Join(parts, ", "))
	}
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100]
}

func pctI(d []int64, p int) int64 {
	if len(d) == 0 {
		return 0
	}
	s := append([]int64(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100]
}

// treeRSS sums the RSS of pid and all its descendants.
func treeRSS(pid int) int64 {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			if f := strings.Fields(s[i+1:]); len(f) > 1 {
				pp, _ := strconv.Atoi(f[1])
				parent[p] = pp
			}
		}
	}
	var sum int64
	for p := range parent {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				sum += procRSS(p)
				break
			}
		}
	}
	return sum
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
