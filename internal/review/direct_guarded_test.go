package review

import (
	"context"
	"os"
	"strings"
	"testing"
)

// Direct mode: a file that appears on a hidden path or a protected one
// during the session (outside attack direct/30 planted them by a gate race)
// is named and high; the hidden one's content is never read; a hidden file
// present from the start and untouched is not reported, one changed is.
func TestDirectReviewGuardedPaths(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := hostRepo(t)
	writeFile(t, repo+"/.gitignore", ".env\n", 0o644)
	writeFile(t, repo+"/.env", "TOKEN=old\n", 0o600)
	writeFile(t, repo+"/keep.key", "K\n", 0o600)
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir(),
		Hide: []string{".env", "*.key", "config/secret.txt"}, Protect: []string{".git/hooks", "deploy/prod.yml"}}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo+"/config/secret.txt", "PWNED-SECRET\n", 0o644)
	writeFile(t, repo+"/deploy/prod.yml", "PWNED\n", 0o644)
	writeFile(t, repo+"/.env", "TOKEN=changed-by-someone\n", 0o600)
	writeFile(t, repo+"/src/ok.go", "package src\n", 0o644)
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"config/secret.txt", "deploy/prod.yml", ".env"} {
		if fs := findingOn(res, p); !hasRule(fs, "GUARDED-PATH") {
			t.Errorf("%s: no GUARDED-PATH flag: %v", p, fs)
		}
	}
	for _, p := range []string{"keep.key", "src/ok.go"} {
		if hasRule(findingOn(res, p), "GUARDED-PATH") {
			t.Errorf("%s: GUARDED-PATH on an unguarded or untouched path", p)
		}
	}
	for _, r := range res.Reports {
		if strings.Contains(string(r.File.New), "SECRET") || strings.Contains(string(r.File.New), "TOKEN") {
			t.Errorf("%s: hidden content was read", r.File.Path)
		}
	}
	os.Remove(repo + "/keep.key")
	res, err = Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(findingOn(res, "keep.key"), "GUARDED-PATH") {
		t.Errorf("a removed hidden file is not reported")
	}
}
