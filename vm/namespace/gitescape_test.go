//go:build linux

package namespace

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/gitseed"
	"github.com/airlock-sandbox/airlock/internal/testenv"
	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// Direct mode: nothing the agent writes can make host git run code. Each
// attack of issue 13 is run as the agent inside a real sandbox; then the
// test runs plain host git (status, diff, log, fetch, gc) in the folder and
// checks that no marker command ran. The same attack script run on an
// unprotected copy of the repository (the control) does leave markers, so
// the attacks are real.

func gitRun(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ALLOW_PROTOCOL=file")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// gitAttackRepo is hostRepo plus a submodule (lib) and a remote to fetch.
func gitAttackRepo(t *testing.T) string {
	repo := hostRepo(t)
	up := filepath.Join(filepath.Dir(repo), "upstream.git")
	gitRun(t, "", nil, "clone", "-q", "--bare", repo, up)
	gitRun(t, repo, nil, "remote", "add", "origin", up)
	sub := filepath.Join(filepath.Dir(repo), "subsrc")
	os.MkdirAll(sub, 0o755)
	gitRun(t, sub, nil, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(sub, "l.txt"), []byte("lib\n"), 0o644)
	gitRun(t, sub, nil, "add", ".")
	gitRun(t, sub, nil, "commit", "-q", "-m", "lib")
	gitRun(t, repo, nil, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "lib")
	gitRun(t, repo, nil, "commit", "-q", "-m", "lib")
	return repo
}

// gitAttackScript plants every issue-13 attack in the repository at $1;
// each command runs the marker "touch $2/NAME" when host git obeys it.
// Failures are ignored: the point is what gets through.
const gitAttackScript = `cd "$1"; M="$2"
fsm() { printf '[core]\n\tfsmonitor = "touch %s/%s; false"\n' "$M" "$1"; }
g() { git -c user.name=a -c user.email=a@a -c core.hooksPath=/dev/null -c protocol.file.allow=always "$@"; }
# 1. nested repo registered as a gitlink, its config runs fsmonitor
mkdir -p vendor && (cd vendor && git init -q && fsm nested >> .git/config && echo v > f && g add f && g commit -qm v)
g add vendor && g commit -qm vendor
# submodule gitfile pointed at an agent-made git dir
mkdir -p evilsub && cp -r vendor/.git/. evilsub/ 2>/dev/null; fsm submodule-gitfile > evilsub/config.new; cat evilsub/config >> evilsub/config.new; mv evilsub/config.new evilsub/config
printf 'gitdir: ../evilsub\n' > lib/.git
# 2. commondir pointing at an agent-made config
mkdir -p evilcommon/refs evilcommon/objects && cp .git/HEAD evilcommon/ 2>/dev/null; fsm commondir > evilcommon/config
echo ../evilcommon > .git/commondir
# 3. every other file git reads
fsm config >> .git/config
printf '[core]\n\thooksPath = %s/hooks\n[alias]\n\tstatus = !touch %s/alias\n' "$(pwd)/.evilhooks" "$M" >> .git/config
mkdir -p .evilhooks .git/hooks
for h in post-checkout pre-auto-gc reference-transaction post-index-change fsmonitor-watchman pre-commit post-merge; do
  printf '#!/bin/sh\ntouch %s/hook-%s\n' "$M" "$h" > .git/hooks/$h; chmod +x .git/hooks/$h
  cp .git/hooks/$h .evilhooks/$h
done
fsm config-worktree > .git/config.worktree
printf '* filter=evil diff=evil\n' > .git/info/attributes
printf '[filter "evil"]\n\tclean = touch %s/filter\n' "$M" >> .git/config
exit 0
`

// gitDamageScript overwrites the rest of what git reads (index, HEAD,
// refs, alternates): inside it runs after gitAttackScript; the control
// leaves it out, since a broken repository runs nothing at all.
const gitDamageScript = `cd "$1"
echo garbage > .git/index
mkdir -p .git/worktrees/w && echo ../../evilcommon > .git/worktrees/w/commondir
mkdir -p .git/modules/lib && fsm modules > .git/modules/lib/config
mkdir -p .git/objects/info && echo /nonexistent > .git/objects/info/alternates
echo 'ref: refs/heads/evil' > .git/HEAD
echo 0000000000000000000000000000000000000000 > .git/refs/heads/main
echo '# pack-refs with: peeled' > .git/packed-refs
echo '[remote "origin"]' > .git/info/x
exit 0
`

func hostGitCommands(t *testing.T, repo, markers string) {
	t.Helper()
	env := []string{"MARKER_DIR=" + markers}
	for _, args := range [][]string{{"status"}, {"diff"}, {"log", "-1"}, {"fetch", "-q", "origin"}, {"gc", "-q"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		cmd.Env = append(cmd.Env, env...)
		cmd.Run() // whatever git thinks of the repository: only markers matter
	}
}

func markerNames(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func TestEscapeDirectGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Missing(t, "git not installed")
	}
	repo := gitAttackRepo(t)
	markers := t.TempDir()
	os.Chmod(markers, 0o777)
	// The control: the same script on an unprotected copy, then host git.
	ctl := filepath.Join(t.TempDir(), "ctl")
	if out, err := exec.Command("cp", "-a", repo, ctl).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	ctlMarkers := t.TempDir()
	if out, err := exec.Command("sh", "-c", gitAttackScript, "sh", ctl, ctlMarkers).CombinedOutput(); err != nil {
		t.Fatalf("control attack: %v %s", err, out)
	}
	hostGitCommands(t, ctl, ctlMarkers)
	if testing.Verbose() {
		t.Logf("control markers: %v", markerNames(ctlMarkers))
	}
	if m := strings.Join(markerNames(ctlMarkers), ","); !strings.Contains(m, "nested") || !strings.Contains(m, "commondir") {
		t.Fatal("control: the attacks ran nothing on an unprotected repository; the test proves nothing")
	}
	t.Logf("control markers (unprotected): %v", markerNames(ctlMarkers))

	_, cl, _ := up(t, "dgit", func(s *vm.Spec) {
		s.Workspace = vm.Workspace{HostPath: repo, Mode: vm.ModeDirect, Target: "/workspace", Hide: hide,
			Protect: []string{".git/hooks", ".git/config"}}
	})
	// Git works inside, on the agent's own git directory with the host's
	// history (objects through the read-only alternates).
	if got := vmtest.MustExec(t, cl, "cd /workspace && git log --format=%s | head -1 && git status --porcelain -- README"); got != "lib\n M README\n" {
		t.Errorf("git inside = %q", got)
	}
	out, errs, _ := vmtest.Exec(t, cl, "sh -c "+shq(gitAttackScript)+" sh /workspace "+shq(markers)+"; sh -c "+shq(gitDamageScript)+" sh /workspace")
	if testing.Verbose() {
		t.Logf("attack inside: %s %s", out, errs)
	}
	shouldFail(t, cl, "rewrite the submodule's gitfile", "echo 'gitdir: /tmp' > /workspace/lib/.git")
	shouldFail(t, cl, "remove the submodule's gitfile", "rm -f /workspace/lib/.git")
	shouldFail(t, cl, "move the submodule away", "mv /workspace/lib /workspace/lib2")
	shouldFail(t, cl, "swap .git away", "mv /workspace/.git /workspace/.git-old")
	shouldFail(t, cl, "write the host objects", "touch "+gitseed.GuestObjects+"/x")
	// Positive control: the working tree is live.
	vmtest.MustExec(t, cl, "echo agent > /workspace/agent.txt")
	if b, _ := os.ReadFile(filepath.Join(repo, "agent.txt")); string(b) != "agent\n" {
		t.Fatalf("direct-mode write not on the host: %q", b)
	}
	hostGitCommands(t, repo, markers)
	if m := markerNames(markers); len(m) != 0 {
		t.Errorf("host git ran commands the agent planted: %v", m)
	}
}

// TestEscapeDirectGitTable writes every path under the host's .git (and
// the names git reads that a fresh repository lacks) from inside, then
// checks that the host's .git is byte-identical.
func TestEscapeDirectGitTable(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Missing(t, "git not installed")
	}
	repo := gitAttackRepo(t)
	before, err := testenv.TreeHash(filepath.Join(repo, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	filepath.WalkDir(filepath.Join(repo, ".git"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(filepath.Join(repo, ".git"), p)
			paths[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	for _, p := range []string{"commondir", "index", "config", "config.worktree", "HEAD", "packed-refs", "shallow",
		"info/attributes", "info/exclude", "info/grafts", "info/alternates", "objects/info/alternates", "objects/info/http-alternates",
		"objects/info/commit-graph", "objects/info/packs", "worktrees/w/commondir", "worktrees/w/gitdir", "modules/lib/config",
		"modules/lib/hooks/post-checkout", "hooks/post-checkout", "hooks/pre-auto-gc", "hooks/reference-transaction",
		"refs/heads/main", "refs/remotes/origin/main", "FETCH_HEAD", "ORIG_HEAD", "MERGE_HEAD", "logs/HEAD", "sharedindex.0",
		"gitdir", "description", "branches/x", "remotes/x", "rr-cache/x", "lfs/config"} {
		paths[p] = true
	}
	var list []string
	for p := range paths {
		list = append(list, p)
	}
	sort.Strings(list)
	_, cl, _ := up(t, "dgtab", func(s *vm.Spec) {
		s.Workspace = vm.Workspace{HostPath: repo, Mode: vm.ModeDirect, Target: "/workspace"}
	})
	var script strings.Builder
	script.WriteString("cd /workspace/.git || exit 1\n")
	for _, p := range list {
		script.WriteString("mkdir -p " + shq(filepath.Dir(p)) + " 2>/dev/null; chmod u+w " + shq(p) + " 2>/dev/null; echo pwned >> " + shq(p) + " 2>/dev/null || echo FAIL " + shq(p) + "\n")
	}
	out := vmtest.MustExec(t, cl, script.String())
	if strings.Count(out, "FAIL") == len(list) {
		t.Fatalf("positive control: the private .git took no writes at all:\n%s", out)
	}
	after, _ := testenv.TreeHash(filepath.Join(repo, ".git"))
	if after != before {
		t.Errorf("host .git changed from inside:\n%s", testenv.DiffLines(before, after))
	}
	for _, p := range list {
		if b, err := os.ReadFile(filepath.Join(repo, ".git", p)); err == nil && strings.Contains(string(b), "pwned") {
			t.Errorf("host .git/%s written from inside", p)
		}
	}
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
