package review

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Clone mode's snapshot starts from a copy of the agent's index (its stat
// cache), and the index does not decide what is captured: a file with
// other content staged, a new file and a deletion are captured as they
// are in the folder, and an index git cannot read makes the snapshot start
// again from HEAD instead of failing.
func TestCloneSnapshotAgentIndex(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	host := hostRepo(t)
	sandbox := filepath.Join(t.TempDir(), "ws")
	runGit(t, "", "clone", "-q", "--no-hardlinks", "-c", "core.hooksPath=/dev/null", host, sandbox)
	tg := &Target{Name: "demo", Mode: ModeClone, Repo: host, StateDir: t.TempDir(), Guest: localGuest{sandbox}, FetchURL: sandbox}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, sandbox+"/src/main.go", "package main\n\nfunc main() { staged() }\n", 0o644)
	runGit(t, sandbox, "add", "src/main.go")
	writeFile(t, sandbox+"/src/main.go", "package main\n\nfunc main() { live() }\n", 0o644)
	writeFile(t, sandbox+"/new.sh", "#!/bin/sh\necho hi\n", 0o755)
	runGit(t, sandbox, "rm", "-q", "README.md")
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"src/main.go", "new.sh", "README.md"} {
		if !reported(res, p) {
			t.Errorf("%s: change not reviewed", p)
		}
	}
	for _, r := range res.Reports {
		if r.File.Path == "src/main.go" && !strings.Contains(string(r.File.New), "live()") {
			t.Errorf("src/main.go captured as %q, not as in the folder", r.File.New)
		}
	}
	writeFile(t, sandbox+"/.git/index", "not an index\n", 0o644)
	writeFile(t, sandbox+"/later.txt", "x\n", 0o644)
	if res, err = Review(ctx, tg); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"src/main.go", "new.sh", "README.md", "later.txt"} {
		if !reported(res, p) {
			t.Errorf("broken agent index: %s: change not reviewed", p)
		}
	}
}
