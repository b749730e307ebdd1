package cli_test

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// readmeFirstBlock is README.md's first ```sh code block, as a reader
// copies it.
func readmeFirstBlock(t *testing.T, readme string) string {
	t.Helper()
	src, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case !in && strings.TrimSpace(l) == "```sh":
			in = true
		case in && strings.TrimSpace(l) == "```":
			return strings.Join(lines, "\n") + "\n"
		case in:
			lines = append(lines, l)
		}
	}
	t.Fatalf("%s has no ```sh block", readme)
	return ""
}

// TestReadmeFirstCommand runs README.md's first code block literally in a
// fresh clone of this repository, with a fresh HOME and AIRLOCK_HOME: the
// first thing a new user does must work (issue 26: it did not, and no test
// noticed). OpenSSH reads ~/.ssh of the passwd entry, not $HOME, so the
// block runs in a private mount namespace whose /etc/passwd gives this user
// the fresh home (nothing of the caller's ~/.ssh is read or written). The
// backend is whatever `auto` picks here, as for the reader: the namespace
// backend without KVM, a microVM (image built on first use) with it.
// Then a direct-mode sandbox of the same clone starts with the built-in
// hide globs, although the repository commits files they match.
func TestReadmeFirstCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds airlock and brings up a sandbox")
	}
	if os.Geteuid() != 0 {
		testenv.Missing(t, "needs root for a private mount namespace with a fresh passwd home")
	}
	for _, tool := range []string{"git", "make", "go", "ssh", "unshare", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Missing(t, "%s not in PATH", tool)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not a git checkout: nothing to clone")
	}
	block := readmeFirstBlock(t, filepath.Join(root, "README.md"))
	// The example forwards host port 18080; another test's server may hold
	// it for a while (the suite runs packages in parallel).
	for i := 0; ; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:18080")
		if err == nil {
			l.Close()
			break
		}
		if i == 90 {
			t.Skipf("127.0.0.1:18080, the example's port, stayed taken by another process: %v", err)
		}
		time.Sleep(time.Second)
	}
	tmp := t.TempDir()
	repo, home := filepath.Join(tmp, "repo"), filepath.Join(tmp, "home")
	if out, err := exec.Command("git", "clone", "-q", root, repo).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	passwd := fakePasswd(t, tmp, home)

	// Only what a shell needs, and where Go keeps its caches (a fresh
	// build cache would make this test minutes long); nothing else of the
	// caller's environment (T, HOME, AIRLOCK_*) reaches the block.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "AIRLOCK_HOME=" + filepath.Join(tmp, "airlock"),
		"LANG=C.UTF-8", "GOTOOLCHAIN=local", "GOFLAGS="}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GONOSUMDB", "GOSUMDB"} {
		if v, err := exec.Command("go", "env", k).Output(); err == nil && len(bytes.TrimSpace(v)) > 0 {
			env = append(env, k+"="+string(bytes.TrimSpace(v)))
		}
	}
	airlock := filepath.Join(repo, "bin", "airlock")
	t.Cleanup(func() {
		for _, args := range [][]string{{"rm", "--force", "example"}, {"rm", "--force", "direct"}, {"bridge", "-stop"}} {
			c := exec.Command(airlock, args...)
			c.Env, c.Dir = env, repo
			c.Run()
		}
	})
	run := func(script string) string {
		t.Helper()
		cmd := exec.Command("unshare", "--mount", "--propagation", "private", "--",
			"sh", "-c", `mount --bind "$1" /etc/passwd && cd "$2" && exec sh -ec "$3"`, "sh", passwd, repo, script)
		cmd.Env = env
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		t.Logf("%.1fs: %s", time.Since(t0).Seconds(), strings.TrimSpace(script))
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		return string(out)
	}
	out := run(block)
	for _, want := range []string{"uid=1000(agent)", "README.md", "sandbox.hcl.example"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the README's first command did not show %q:\n%s", want, out)
		}
	}

	// This repository in direct mode, with only the built-in hide globs.
	hcl := "sandbox \"direct\" {\n  workspace {\n    mode = \"direct\"\n  }\n  network {\n    preset = \"locked-down\"\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(repo, "direct.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	out = run("./bin/airlock up -f direct.hcl --yes --quiet && ./bin/airlock exec direct -- sh -c 'cd /workspace && git log --oneline -1 >/dev/null && ls go.mod'")
	if !strings.Contains(out, "go.mod") {
		t.Fatalf("direct mode of this repository:\n%s", out)
	}
}

// fakePasswd writes a copy of /etc/passwd in which this user's home is home.
func fakePasswd(t *testing.T, dir, home string) string {
	t.Helper()
	src, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Fatal(err)
	}
	uid := strconv.Itoa(os.Geteuid())
	lines := strings.Split(string(src), "\n")
	found := false
	for i, l := range lines {
		f := strings.Split(l, ":")
		if len(f) == 7 && f[2] == uid && !found {
			f[5] = home
			lines[i] = strings.Join(f, ":")
			found = true
		}
	}
	if !found {
		t.Fatalf("uid %d has no passwd entry", os.Geteuid())
	}
	p := filepath.Join(dir, "passwd")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
