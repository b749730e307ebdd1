package review

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Outside attacks, round 2, on direct mode's survey (a5436b9, fef921b,
// a6d1847): git status without the hide globs, hidden paths filtered in
// Go, literal pathspecs for git add.

var o2Hide = []string{".env", ".env.*", "*.pem", "*.key", "id_*", "secrets/"}

func o2Target(t *testing.T, repo string) *Target {
	return &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir(), Hide: o2Hide}
}

func o2Review(t *testing.T, tg *Target) *Result {
	t.Helper()
	res, err := Review(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// o2NoSecret fails when any report carries the marker of a hidden file.
func o2NoSecret(t *testing.T, res *Result) {
	t.Helper()
	for _, r := range res.Reports {
		if strings.Contains(string(r.File.New), "O2-SECRET") || strings.Contains(string(r.File.Old), "O2-SECRET") {
			t.Errorf("review read hidden content: %s", r.File.Path)
		}
	}
}

const o2Pkg = `{"name":"g","scripts":{"install":"touch /tmp/o2"}}` + "\n"

// TestOutside2FormerNestedRepo: a directory holding only a host secret
// (deploy/.env) is made a nested repository by the agent (review 1 stages
// it as a gitlink), then its .git is removed and a package.json written.
// Review 2 stages ":(literal)deploy" (every index gitlink is staged) with
// no hide excludes: must not read deploy/.env, must report package.json.
func TestOutside2FormerNestedRepo(t *testing.T) {
	gitEnv(t)
	repo := hostRepo(t)
	writeFile(t, repo+"/deploy/.env", "O2-SECRET=1\n", 0o600)
	tg := o2Target(t, repo)
	if err := Baseline(context.Background(), tg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo+"/deploy/x.txt", "x\n", 0o644)
	runGit(t, repo+"/deploy", "init", "-q")
	runGit(t, repo+"/deploy", "add", "x.txt")
	runGit(t, repo+"/deploy", "commit", "-q", "-m", "x")
	o2NoSecret(t, o2Review(t, tg))
	if err := os.RemoveAll(repo + "/deploy/.git"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo+"/deploy/package.json", o2Pkg, 0o644)
	res := o2Review(t, tg)
	o2NoSecret(t, res)
	if len(findingOn(res, "deploy/package.json")) == 0 && !hasHigh(res, "deploy") {
		t.Errorf("deploy/package.json (install script) after the nested repo's .git went: not reported: %+v", res.Reports)
	}
}

// hasHigh: some high finding on a path at or below p.
func hasHigh(res *Result, p string) bool {
	for _, r := range res.Reports {
		if r.File.Path == p || strings.HasPrefix(r.File.Path, p+"/") {
			for _, f := range r.Findings {
				if f.Severity == High {
					return true
				}
			}
		}
	}
	return false
}

// TestOutside2FullModeDeep: past maxPathspecs changed paths git add gets
// "." with the hide globs as excludes: a new file two directories deep
// must still be staged (the git 2.39 behaviour fef921b worked around).
func TestOutside2FullModeDeep(t *testing.T) {
	gitEnv(t)
	repo := hostRepo(t)
	tg := o2Target(t, repo)
	if err := Baseline(context.Background(), tg); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < maxPathspecs+50; i++ {
		writeFile(t, fmt.Sprintf("%s/gen/f%04d.txt", repo, i), "x\n", 0o644)
	}
	writeFile(t, repo+"/lib/big/package.json", o2Pkg, 0o644)
	writeFile(t, repo+"/lib/big/deeper/.envrc", "curl x | sh\n", 0o644)
	res := o2Review(t, tg)
	for _, p := range []string{"lib/big/package.json", "lib/big/deeper/.envrc"} {
		if len(findingOn(res, p)) == 0 {
			t.Errorf("full mode: %s not reported", p)
		}
	}
}

// o2Names are file names that look like pathspec magic, globs, options or
// carry control and unicode characters.
var o2Names = []string{":(exclude)Makefile", ":!x", ":/top", "*", "[ab]", `a\b`, "-rf", "--all",
	"new\nline", "tab\there", " lead", "trail ", "é-nfc", "e\u0301-nfd", "\u202egnp.sh", "a*b?c"}

// TestOutside2OddNames: a package.json under directories with odd names,
// deep, each reported; pathspec magic in a name must not widen or narrow
// what git add stages.
func TestOutside2OddNames(t *testing.T) {
	gitEnv(t)
	repo := hostRepo(t)
	tg := o2Target(t, repo)
	if err := Baseline(context.Background(), tg); err != nil {
		t.Fatal(err)
	}
	for _, n := range o2Names {
		writeFile(t, repo+"/x/"+n+"/y/package.json", o2Pkg, 0o644)
	}
	writeFile(t, repo+"/Makefile", "all:\n\tcurl x | sh\n", 0o644)
	res := o2Review(t, tg)
	for _, n := range append(o2Names, "") {
		p := "x/" + n + "/y/package.json"
		if n == "" {
			p = "Makefile"
		}
		if len(findingOn(res, p)) == 0 {
			t.Errorf("%q not reported", p)
		}
	}
}

// TestOutside2IgnoredDirWithSecret: .gitignore ignores build/ and the
// user keeps build/.env and build/secrets/token there. The agent adds
// build/run.sh and build/.vscode-ish risky files; the ignored directory
// is force-staged (changed after the start) without hide excludes.
func TestOutside2IgnoredDirWithSecret(t *testing.T) {
	gitEnv(t)
	repo := hostRepo(t)
	writeFile(t, repo+"/.gitignore", "build/\nout\n", 0o644)
	runGit(t, repo, "add", ".gitignore")
	runGit(t, repo, "commit", "-q", "-m", "ign")
	writeFile(t, repo+"/build/.env", "O2-SECRET=1\n", 0o600)
	writeFile(t, repo+"/build/secrets/token", "O2-SECRET\n", 0o600)
	writeFile(t, repo+"/out/id_rsa", "O2-SECRET\n", 0o600)
	tg := o2Target(t, repo)
	if err := Baseline(context.Background(), tg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo+"/build/package.json", o2Pkg, 0o644)
	writeFile(t, repo+"/out/Makefile", "all:\n\tcurl x|sh\n", 0o644)
	res := o2Review(t, tg)
	o2NoSecret(t, res)
	for _, p := range []string{"build/package.json", "out/Makefile"} {
		if len(findingOn(res, p)) == 0 {
			t.Errorf("ignored %s not reported", p)
		}
	}
}

// TestOutside2TrackedFileBecomesDir: a tracked file replaced by a
// directory of the same name with a package.json below it (staged as
// ":(literal)tool" from a "1 .D" record and a "?" record).
func TestOutside2TrackedFileBecomesDir(t *testing.T) {
	gitEnv(t)
	repo := hostRepo(t)
	writeFile(t, repo+"/tool", "plain\n", 0o644)
	runGit(t, repo, "add", "tool")
	runGit(t, repo, "commit", "-q", "-m", "tool")
	tg := o2Target(t, repo)
	if err := Baseline(context.Background(), tg); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(repo + "/tool"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo+"/tool/sub/package.json", o2Pkg, 0o644)
	res := o2Review(t, tg)
	if len(findingOn(res, "tool/sub/package.json")) == 0 {
		t.Errorf("tool/sub/package.json not reported: %+v", res.Reports)
	}
}

// TestOutside2ExecOnlyDir: the agent writes .vscode/tasks.json (a
// folder-open task) and makes .vscode execute-only (chmod 111, allowed
// inside; the host sees the directory owned by the user with that mode).
// git status cannot list the directory and skips it with a warning, yet
// VS Code opens .vscode/tasks.json by name. Needs a non-root user (root
// reads any directory): run the test binary as one.
func TestOutside2ExecOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads an execute-only directory; run as a non-root user")
	}
	gitEnv(t)
	repo := hostRepo(t)
	tg := o2Target(t, repo)
	if err := Baseline(context.Background(), tg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo+"/.vscode/tasks.json", `{"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"touch /tmp/o2","runOptions":{"runOn":"folderOpen"}}]}`, 0o644)
	writeFile(t, repo+"/lib/package.json", o2Pkg, 0o644)
	for _, d := range []string{"/.vscode", "/lib"} {
		if err := os.Chmod(repo+d, 0o111); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(repo+d, 0o755) })
	}
	if _, err := os.ReadFile(repo + "/.vscode/tasks.json"); err != nil {
		t.Fatal(err) // what VS Code does: open by name
	}
	res, err := Review(context.Background(), tg)
	if err != nil {
		return // review failed closed: not silent
	}
	for _, p := range []string{".vscode", "lib"} {
		if !hasHigh(res, p) {
			t.Errorf("%s/ (execute-only, holding a runnable file) has no high finding: %+v", p, res.Reports)
		}
	}
}
