package review

import (
	"context"
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
