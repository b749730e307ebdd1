package k8stest

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestEnsureBinaries builds the binaries through EnsureBinaries into the
// cache AIRLOCK_K8S_BUILD_CACHE names (manual: minutes with a warm
// gocache there, about 15 minutes cold on 2 cores).
func TestEnsureBinaries(t *testing.T) {
	cache := os.Getenv("AIRLOCK_K8S_BUILD_CACHE")
	if cache == "" {
		t.Skip("set AIRLOCK_K8S_BUILD_CACHE to a cache directory to build into")
	}
	start := time.Now()
	bin, err := EnsureBinaries(context.Background(), cache, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	if !Cached(cache) {
		t.Fatal("not cached after EnsureBinaries")
	}
	t.Logf("binaries in %s after %v", bin, time.Since(start).Round(time.Second))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Logf("%s", p); return len(p), nil }
