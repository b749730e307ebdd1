package review

import (
	"context"
	"strings"
	"testing"
)

// TestDirectNewFileDeepWithHide: a new file two directories below the
// root is reviewed in direct mode with hide globs set (the default), alone
// or with others (outside attack 06: git add staged nothing when a glob
// exclude came with the one literal path).
func TestDirectNewFileDeepWithHide(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := hostRepo(t)
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir(), Hide: []string{".env", ".env.*", "*.pem", "*.key", "id_*"}}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo+"/lib/big/package.json", `{"name":"g","scripts":{"install":"touch /tmp/q5"}}`+"\n", 0o644)
	writeFile(t, repo+"/lib/big/.env", "SECRET=1\n", 0o644)
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	if fs := findingOn(res, "lib/big/package.json"); len(fs) == 0 {
		t.Errorf("a new lib/big/package.json with an install script is not reported: %+v", res.Reports)
	}
	if fs := findingOn(res, "lib/big/.env"); len(fs) != 0 && res.Snapshot != "" {
		for _, r := range res.Reports {
			if r.File.Path == "lib/big/.env" && r.File.New != nil {
				t.Errorf("a hidden file's content was staged: %+v", r.File)
			}
		}
	}
}

// TestDirectHiddenDirectoryNotRead: a hide glob naming a directory
// ("secrets/", the README's example, at any depth; "/keys" anchored) hides
// the files below it from review as from the sandbox: their contents are
// never staged or read.
func TestDirectHiddenDirectoryNotRead(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := hostRepo(t)
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir(), Hide: []string{"secrets/", "/keys", ".env"}}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"secrets/a.txt", "x/secrets/b.txt", "keys/prod/c.txt"} {
		writeFile(t, repo+"/"+p, "TOPSECRET\n", 0o644)
	}
	writeFile(t, repo+"/x/keys/visible.txt", "fine\n", 0o644)
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, r := range res.Reports {
		if strings.Contains(string(r.File.New), "TOPSECRET") {
			t.Errorf("review read hidden %s", r.File.Path)
		}
		seen = seen || r.File.Path == "x/keys/visible.txt"
	}
	if !seen {
		t.Errorf("x/keys/visible.txt (not under the anchored /keys) was not reviewed: %+v", res.Reports)
	}
}
