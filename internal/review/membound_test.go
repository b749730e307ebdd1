package review

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"
)

// Review's git runs under hostgit.MaxMemBytes (history4/06, 08: a
// sandbox sized what git built in memory). An honest large file still
// reviews and applies: objects over 64 MiB are streamed, not held.
func TestLargeFileWithinMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MB")
	}
	tg, sb := cloneTarget(t, map[string]string{"README.md": "# demo\n"})
	big := make([]byte, 200<<20)
	rand.Read(big)
	if err := os.WriteFile(filepath.Join(sb, "assets/video.bin"), big, 0o644); err != nil {
		os.MkdirAll(filepath.Join(sb, "assets"), 0o755)
		if err := os.WriteFile(filepath.Join(sb, "assets/video.bin"), big, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatalf("review of a 200 MB file: %v", err)
	}
	if _, _, err := Apply(ctx, tg, "", res.Unaccepted(nil)); err != nil {
		t.Fatalf("apply of a 200 MB file: %v", err)
	}
}
