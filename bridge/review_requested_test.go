package bridge

import (
	"testing"
	"time"
)

// TestRequestedAt: the client's time dates a review only when it is sane.
func TestRequestedAt(t *testing.T) {
	r := time.Now()
	for _, c := range []struct {
		ms   int64
		want time.Time
	}{
		{0, r},
		{r.Add(time.Second).UnixMilli(), r},      // after the bridge got it
		{r.Add(-2 * time.Minute).UnixMilli(), r}, // too long ago
		{r.Add(-150 * time.Millisecond).UnixMilli(), time.UnixMilli(r.Add(-150 * time.Millisecond).UnixMilli())},
	} {
		if got := requestedAt(c.ms, r); !got.Equal(c.want) {
			t.Errorf("requestedAt(%d) = %v, want %v", c.ms, got, c.want)
		}
	}
}
