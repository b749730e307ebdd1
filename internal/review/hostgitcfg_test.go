package review

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostGitRepo is a host repository with the common team setups: shared
// config included from .git/config (include.path and includeIf), and hooks
// in a tracked directory named by core.hooksPath; the user's own
// core.fsmonitor names a script in the folder.
func hostGitRepo(t *testing.T) string {
	repo := hostRepo(t)
	writeFile(t, repo+"/.gitconfig.shared", "[alias]\n\tst = status\n[include]\n\tpath = conf/more.cfg\n", 0o644)
	writeFile(t, repo+"/conf/more.cfg", "[color]\n\tui = auto\n", 0o644)
	writeFile(t, repo+"/team/branch.inc", "[pull]\n\trebase = true\n", 0o644)
	writeFile(t, repo+"/tools/hooks/pre-commit", "#!/bin/sh\nexit 0\n", 0o755)
	writeFile(t, repo+"/tools/fsmon.sh", "#!/bin/sh\nexit 1\n", 0o755)
	runGit(t, repo, "add", "-A")
	runGit(t, repo, "commit", "-q", "-m", "team setup")
	runGit(t, repo, "config", "include.path", "../.gitconfig.shared")
	runGit(t, repo, "config", "includeIf.gitdir:/.path", "../team/branch.inc")
	runGit(t, repo, "config", "core.hooksPath", "tools/hooks")
	return repo
}

// hostGitRun runs the user's plain git (their config, hooks on).
func hostGitRun(t *testing.T, repo string, args ...string) {
	cmd := exec.Command("git", args...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	cmd.Run()
}

// Files the host's own .git/config makes git config or hooks are reviewed
// as such, whatever their names (issue 25, item 6); each case is checked
// against real git doing what review warns of.
func TestHostGitConfigIncludesAndHooksPath(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := hostGitRepo(t)
	markers := t.TempDir()
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir()}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	// The agent edits only files in the folder.
	writeFile(t, repo+"/.gitconfig.shared", "[alias]\n\tst = status\n[core]\n\tfsmonitor = \"touch "+markers+"/shared; false\"\n[include]\n\tpath = conf/more.cfg\n", 0o644)
	writeFile(t, repo+"/conf/more.cfg", "[color]\n\tui = auto\n[alias]\n\tch = !touch "+markers+"/chained\n", 0o644)
	writeFile(t, repo+"/team/branch.inc", "[pull]\n\trebase = true\n[alias]\n\tup = !touch "+markers+"/includeif\n", 0o644)
	writeFile(t, repo+"/tools/hooks/pre-commit", "#!/bin/sh\ntouch "+markers+"/hook\n", 0o755)
	writeFile(t, repo+"/src/main.go", "package main\n\nfunc main() { println() }\n", 0o644)

	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{".gitconfig.shared": "GIT-CONFIG-CMD", "conf/more.cfg": "GIT-CONFIG-CMD",
		"team/branch.inc": "GIT-CONFIG-CMD", "tools/hooks/pre-commit": "GIT-HOOK"}
	for p, rule := range want {
		fs := findingOn(res, p)
		ok := false
		for _, f := range fs {
			ok = ok || f.Rule == rule && f.Severity == High
		}
		if !ok {
			t.Errorf("%s: want high %s, got %+v", p, rule, fs)
		}
	}
	for _, f := range findingOn(res, "tools/hooks/pre-commit") {
		if f.Rule == "GIT-HOOK" && !strings.Contains(f.Detail, "tools/hooks/pre-commit") {
			t.Errorf("GIT-HOOK does not name the file: %q", f.Detail)
		}
	}
	for _, f := range findingOn(res, "src/main.go") {
		if f.Severity == High {
			t.Errorf("a plain source edit is high: %+v", f)
		}
	}
	// Real git reads and runs all of it: the findings are not theory.
	hostGitRun(t, repo, "status")
	hostGitRun(t, repo, "ch")
	hostGitRun(t, repo, "up")
	hostGitRun(t, repo, "commit", "-q", "--allow-empty", "-m", "x")
	for _, m := range []string{"shared", "chained", "includeif", "hook"} {
		if _, err := os.Stat(filepath.Join(markers, m)); err != nil {
			t.Errorf("control: real git did not run the %s payload; the case proves nothing", m)
		}
	}
}

// The user's own command keys that name a file in the folder make it an
// auto-run target; an unrelated repository layout gives nothing.
func TestHostGitCommandNamesFolderFile(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := hostGitRepo(t)
	runGit(t, repo, "config", "core.fsmonitor", "tools/fsmon.sh")
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir()}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo+"/tools/fsmon.sh", "#!/bin/sh\nid\nexit 1\n", 0o755)
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	fs := findingOn(res, "tools/fsmon.sh")
	ok := false
	for _, f := range fs {
		ok = ok || f.Rule == "AUTORUN-TARGET" && strings.Contains(f.Detail, "core.fsmonitor")
	}
	if !ok {
		t.Errorf("tools/fsmon.sh named by the user's core.fsmonitor: want AUTORUN-TARGET, got %+v", fs)
	}
}

// The user's filter runs `python3 -m nbstripout` from the work tree's top,
// where python looks first: a new nbstripout.py there is what runs
// (outside round round5/017), and real git proves it.
func TestHostGitFilterPythonModule(t *testing.T) {
	gitEnv(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	ctx := context.Background()
	repo := hostGitRepo(t)
	writeFile(t, repo+"/.gitattributes", "*.ipynb filter=nbstripout\n", 0o644)
	writeFile(t, repo+"/nb/eda.ipynb", `{"cells": []}`+"\n", 0o644)
	runGit(t, repo, "add", "-A")
	runGit(t, repo, "commit", "-q", "-m", "notebooks")
	runGit(t, repo, "config", "filter.nbstripout.clean", "python3 -m nbstripout")
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir()}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	writeFile(t, repo+"/nbstripout.py", "import sys, pathlib\npathlib.Path(\""+marker+"\").touch()\nsys.stdout.write(sys.stdin.read())\n", 0o644)
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	fs := findingOn(res, "nbstripout.py")
	ok := false
	for _, f := range fs {
		ok = ok || f.Severity == High && strings.Contains(f.Detail, "filter.nbstripout.clean")
	}
	if !ok {
		t.Errorf("nbstripout.py, which the user's filter runs as python3 -m nbstripout: want a high flag naming the filter, got %+v", fs)
	}
	writeFile(t, repo+"/nb/eda.ipynb", `{"cells": [1]}`+"\n", 0o644)
	hostGitRun(t, repo, "add", "nb/eda.ipynb")
	if _, err := os.Stat(marker); err != nil {
		t.Error("control: real git did not run nbstripout.py through the filter; the case proves nothing")
	}
}

// Clone mode: the host repository's config is read too (the applied
// branch, once checked out, is what the host's git reads).
func TestHostGitConfigCloneMode(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	host := hostGitRepo(t)
	sandbox := filepath.Join(t.TempDir(), "ws")
	runGit(t, "", "clone", "-q", "--no-hardlinks", "-c", "core.hooksPath=/dev/null", host, sandbox)
	tg := &Target{Name: "demo", Mode: ModeClone, Repo: host, StateDir: t.TempDir(), Guest: localGuest{sandbox}, FetchURL: sandbox}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, sandbox+"/.gitconfig.shared", "[core]\n\tsshCommand = sh -c id\n", 0o644)
	writeFile(t, sandbox+"/tools/hooks/post-merge", "#!/bin/sh\nid\n", 0o755)
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(findingOn(res, ".gitconfig.shared"), "GIT-CONFIG-CMD") {
		t.Errorf(".gitconfig.shared: want GIT-CONFIG-CMD, got %+v", findingOn(res, ".gitconfig.shared"))
	}
	if !hasRule(findingOn(res, "tools/hooks/post-merge"), "GIT-HOOK") {
		t.Errorf("tools/hooks/post-merge: want GIT-HOOK, got %+v", findingOn(res, "tools/hooks/post-merge"))
	}
}

// PRE-COMMIT names the file it fired on (it covers several tools' files).
func TestPreCommitNamesFile(t *testing.T) {
	for _, p := range []string{".husky/pre-commit", ".githooks/pre-push", "lefthook.yml", ".pre-commit-config.yaml"} {
		reps := Scan([]*File{{Path: p, NewMode: ModeFile, New: []byte("x\n"), Size: 2}})
		found := false
		for _, f := range reps[0].Findings {
			found = found || f.Rule == "PRE-COMMIT" && f.Detail == p
		}
		if !found {
			t.Errorf("%s: PRE-COMMIT does not name the file: %+v", p, reps[0].Findings)
		}
	}
}
