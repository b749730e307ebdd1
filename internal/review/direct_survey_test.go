package review

import (
	"context"
	"os"
	"testing"
)

// Staging only what git status reports still sees every kind of change:
// a nested repository's HEAD moving (status does not enter it), a
// deletion, a mode change, a new file in a new directory, an ignored file
// in a risky place, and nothing at all.
func TestDirectSurveySeesEveryChange(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := hostRepo(t)
	writeFile(t, repo+"/.gitignore", "local/\n", 0o644)
	nested := repo + "/vendor/lib"
	writeFile(t, nested+"/a.txt", "a\n", 0o644)
	runGit(t, nested, "init", "-q", "-b", "main")
	runGit(t, nested, "add", "-A")
	runGit(t, nested, "commit", "-q", "-m", "one")
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir()}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Reports) != 0 {
		t.Fatalf("nothing changed, got %d reports", len(res.Reports))
	}
	writeFile(t, nested+"/b.txt", "b\n", 0o644)
	runGit(t, nested, "add", "-A")
	runGit(t, nested, "commit", "-q", "-m", "two")
	os.Remove(repo + "/README.md")
	os.Chmod(repo+"/src/main.go", 0o755)
	writeFile(t, repo+"/new/dir/x.sh", "#!/bin/sh\nid\n", 0o755)
	writeFile(t, repo+"/local/.envrc", "source ./evil.sh\n", 0o644)
	if res, err = Review(ctx, tg); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"vendor/lib", "README.md", "src/main.go", "new/dir/x.sh", "local/.envrc"} {
		if !reported(res, p) {
			t.Errorf("%s: change not reviewed", p)
		}
	}
}
