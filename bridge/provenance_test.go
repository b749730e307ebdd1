package bridge

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

func TestImageDigestCachedByPathSizeMtime(t *testing.T) {
	home := t.TempDir()
	img := filepath.Join(t.TempDir(), "root.img")
	data := []byte("root image bytes")
	os.WriteFile(img, data, 0o444)
	mtime := time.Unix(1700000000, 0)
	os.Chtimes(img, mtime, mtime)
	want := sha256.Sum256(data)
	d, err := imageDigest(home, img)
	if err != nil || d != hex.EncodeToString(want[:]) {
		t.Fatalf("digest %s %v, want %x", d, err, want)
	}
	// Same size and mtime: the cache answers (the file is not read again).
	os.Chmod(img, 0o644)
	os.WriteFile(img, []byte("ROOT IMAGE BYTES"), 0o444)
	os.Chtimes(img, mtime, mtime)
	if d2, _ := imageDigest(home, img); d2 != d {
		t.Fatalf("cache not used: %s", d2)
	}
	// A rebuilt image (new mtime) is hashed again.
	os.Chtimes(img, mtime.Add(time.Second), mtime.Add(time.Second))
	want = sha256.Sum256([]byte("ROOT IMAGE BYTES"))
	if d3, _ := imageDigest(home, img); d3 != hex.EncodeToString(want[:]) {
		t.Fatalf("rebuilt image digest %s, want %x", d3, want)
	}
	if _, err := imageDigest(home, filepath.Join(home, "missing.img")); err == nil {
		t.Fatal("missing image gave a digest")
	}
}

func TestProvenanceTrailersOmitNothingKnown(t *testing.T) {
	p := &protocol.Provenance{Backend: "microvm", Accelerator: "kvm", Kernel: "6.1.0", Image: "sha256:ab", Plan: "cd", Policy: "ef", Version: "v1"}
	got := map[string]string{}
	for _, tr := range ProvenanceTrailers("box", p) {
		got[tr.Key] = tr.Value
	}
	want := map[string]string{"Airlock-Sandbox": "box", "Airlock-Backend": "microvm (kvm)", "Airlock-Kernel": "6.1.0",
		"Airlock-Image": "sha256:ab", "Airlock-Plan": "sha256:cd", "Airlock-Policy": "sha256:ef", "Airlock-Version": "v1"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
