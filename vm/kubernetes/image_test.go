package kubernetes

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
)

// TestImageArchive: the archive made from the microVM root image holds the
// root file system with its owners and the agent, in the layout `ctr
// images import` and `docker load` read.
func TestImageArchive(t *testing.T) {
	archive := testImageArchive(t)
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	var manifest []struct {
		Config           string
		RepoTags, Layers []string
	}
	layers := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case h.Name == "manifest.json":
			if err := json.NewDecoder(tr).Decode(&manifest); err != nil {
				t.Fatal(err)
			}
		case strings.HasSuffix(h.Name, ".tar.gz"):
			zr, err := gzip.NewReader(tr)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]*tar.Header{}
			lr := tar.NewReader(zr)
			for {
				lh, err := lr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				seen[lh.Name] = lh
			}
			for _, want := range []string{"usr/lib/airlock/airlock-agent", "usr/bin/bash", "etc/passwd", "home/agent/"} {
				if seen[want] == nil {
					t.Errorf("layer lacks %s", want)
				}
			}
			if h := seen["home/agent/"]; h != nil && h.Uid != 1000 {
				t.Errorf("home/agent owned by %d, want 1000", h.Uid)
			}
			if h := seen["usr/bin/bash"]; h != nil && (h.Uid != 0 || h.Mode&0o111 == 0) {
				t.Errorf("usr/bin/bash: uid %d mode %o", h.Uid, h.Mode)
			}
			layers[h.Name] = nil
		}
	}
	if len(manifest) != 1 || len(manifest[0].RepoTags) != 1 || manifest[0].RepoTags[0] != testImageRef || len(manifest[0].Layers) != 1 {
		t.Fatalf("manifest %+v", manifest)
	}
	if len(layers) != 1 {
		t.Fatalf("%d layers", len(layers))
	}
}
