package ociimage

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWriteTar: a layer lists the tree sorted, a second name of a file
// as a hard link, a symlink with its target, and each extra file under
// parent directories it adds; the same tree gives the same bytes.
func TestWriteTar(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "usr/bin"), 0o755)
	os.WriteFile(filepath.Join(root, "usr/bin/a"), []byte("hello"), 0o755)
	os.Link(filepath.Join(root, "usr/bin/a"), filepath.Join(root, "usr/bin/b"))
	os.Symlink("usr/bin", filepath.Join(root, "bin"))
	src := filepath.Join(t.TempDir(), "agent")
	os.WriteFile(src, []byte("agent"), 0o600)
	extra := []Extra{{Src: src, Path: "/opt/airlock/agent", Mode: 0o755}}
	var b1, b2 bytes.Buffer
	if err := writeTar(&b1, root, extra); err != nil {
		t.Fatal(err)
	}
	if err := writeTar(&b2, root, extra); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
		t.Fatal("two writes of the same tree differ")
	}
	var got []string
	tr := tar.NewReader(&b1)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		e := h.Name
		switch h.Typeflag {
		case tar.TypeLink:
			e += " link " + h.Linkname
		case tar.TypeSymlink:
			e += " -> " + h.Linkname
		case tar.TypeReg:
			data, _ := io.ReadAll(tr)
			e += " " + string(data)
		}
		got = append(got, e)
	}
	want := []string{"bin -> usr/bin", "usr/", "usr/bin/", "usr/bin/a hello", "usr/bin/b link usr/bin/a", "opt/", "opt/airlock/", "opt/airlock/agent agent"}
	if !slices.Equal(got, want) {
		t.Fatalf("entries %q, want %q", got, want)
	}
}
