package kubernetes

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspaceTarIsTheClone: clone mode's push carries the private clone
// (package wsclone), not the host folder: no token from the remote URL,
// no http.extraHeader, no ignored .env, no hidden file, no hooks; the
// committed, modified and untracked files are there. (Outside attack
// k8s/11: the push tarred the host folder whole.) No cluster needed.
func TestWorkspaceTarIsTheClone(t *testing.T) {
	src := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	write := func(rel, s string) {
		os.MkdirAll(filepath.Dir(filepath.Join(src, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(src, rel), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", ".")
	write(".gitignore", ".env\n")
	write("main.go", "package main\n")
	git("add", "-A")
	git("commit", "-qm", "init")
	git("remote", "add", "origin", "https://alice:ghp_SECRETTOKEN@github.com/alice/x.git")
	git("config", "http.extraHeader", "Authorization: Bearer SECRETHEADER")
	write(".git/hooks/post-checkout", "#!/bin/sh\n")
	write(".env", "SECRETENV\n")
	write("main.go", "package main // changed\n")
	write("new/untracked.txt", "untracked\n")
	write("keys/host.pem", "SECRETPEM\n")

	state := t.TempDir()
	var buf bytes.Buffer
	if err := workspaceTar(context.Background(), &buf, src, state, []string{"*.pem"}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		got[h.Name] = string(b)
		for _, s := range []string{"SECRETTOKEN", "SECRETHEADER", "SECRETENV", "SECRETPEM"} {
			if strings.Contains(string(b), s) {
				t.Errorf("%s in the pushed tree holds %s", h.Name, s)
			}
		}
	}
	for name, want := range map[string]string{"main.go": "package main // changed\n", "new/untracked.txt": "untracked\n", ".gitignore": ".env\n"} {
		if got[name] != want {
			t.Errorf("%s = %q, want %q", name, got[name], want)
		}
	}
	for _, name := range []string{".env", "keys/host.pem", ".git/hooks/post-checkout", ".git/hooks/"} {
		if _, ok := got[name]; ok {
			t.Errorf("%s in the pushed tree", name)
		}
	}
	if _, ok := got[".git/HEAD"]; !ok {
		t.Error("no .git/HEAD: the pushed tree is not a repository")
	}
	if ents, _ := os.ReadDir(state); len(ents) != 0 {
		t.Errorf("the clone was left in the state dir: %v", ents)
	}
}
