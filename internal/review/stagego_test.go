package review

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// gitTreeOf is what git itself stages for the folder: `git add -A` of
// everything (hide globs excluded) into a fresh index, then `git add -f`
// of the ignored files given (review stages those it must see), then
// write-tree.
func gitTreeOf(t *testing.T, tg *Target, forced ...string) string {
	t.Helper()
	g := tg.privGit("index-check")
	os.Remove(g.indexFile())
	run := func(args ...string) string {
		out, err := g.run(context.Background(), append(append([]string{}, privFlags...), args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	run(append([]string{"add", "-A", "--", "."}, hidePathspecs(tg.Hide)...)...)
	if len(forced) > 0 {
		run(append([]string{"add", "-f", "--"}, forced...)...)
	}
	return run("write-tree")
}

// TestStageGoMatchesGit: round after round of agent-like changes, the tree
// direct mode's review records is the tree git stages for the folder, and
// the Go stager (not git) did the staging; git status then agrees the
// folder matches the index it wrote (its stat cache is valid).
func TestStageGoMatchesGit(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := t.TempDir()
	runGit(t, repo, "init", "-q", "-b", "main")
	for i := 0; i < 60; i++ {
		writeFile(t, filepath.Join(repo, fmt.Sprintf("d%d/s%d/f%d.txt", i%3, i%5, i)), fmt.Sprintf("file %d\n", i), 0o644)
	}
	writeFile(t, repo+"/a-b", "dash\n", 0o644)
	writeFile(t, repo+"/a.txt", "dot\n", 0o644)
	writeFile(t, repo+"/a/x", "dir\n", 0o644)
	writeFile(t, repo+"/run.sh", "#!/bin/sh\n", 0o755)
	writeFile(t, repo+"/.gitignore", "*.log\nbuild/\n", 0o644)
	os.Symlink("a.txt", repo+"/link")
	runGit(t, repo, "add", "-A")
	runGit(t, repo, "commit", "-q", "-m", "init")
	tg := &Target{Name: "go", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir(), Hide: []string{".env", "*.pem"}}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	rounds := []func(){
		func() { writeFile(t, repo+"/d0/s0/f0.txt", "changed\n", 0o644) },
		func() {
			writeFile(t, repo+"/new/deep/er/file.go", "package x\n", 0o644)
			os.Remove(repo + "/d1/s1/f1.txt")
			os.Chmod(repo+"/run.sh", 0o644)
			writeFile(t, repo+"/a0", "sorts after a/\n", 0o644)
		},
		func() {
			os.Remove(repo + "/link")
			os.Symlink("/etc/passwd", repo+"/link")
			writeFile(t, repo+"/empty", "", 0o644)
			writeFile(t, repo+"/sp ace/ü.txt", "unicode\n", 0o600)
			writeFile(t, repo+"/.env", "SECRET=1\n", 0o644)
			writeFile(t, repo+"/x.log", "ignored, changed after the start\n", 0o644)
		},
		func() {
			os.RemoveAll(repo + "/d2")
			os.Remove(repo + "/a.txt")
			os.Mkdir(repo+"/a.txt", 0o755)
			writeFile(t, repo+"/a.txt/inside", "file became a directory\n", 0o644)
		},
		func() {
			os.RemoveAll(repo + "/a")
			writeFile(t, repo+"/a", "directory became a file\n", 0o755)
			os.Symlink("/etc", repo+"/d0/s3")
		},
		func() {}, // nothing changed
	}
	for i, change := range rounds {
		change()
		goCalls := stageGoCalls.Load()
		res, err := Review(ctx, tg)
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if got := stageGoCalls.Load() - goCalls; got != 1 {
			t.Errorf("round %d: the Go stager ran %d times, want 1", i, got)
		}
		want := gitTreeOf(t, tg)
		if i >= 2 {
			// The ignored x.log changed after the start: review stages it.
			want = gitTreeOf(t, tg, "x.log")
		}
		if res.Snapshot != want {
			t.Errorf("round %d: review's tree %s, git stages %s\n%s", i, res.Snapshot, want,
				runGit(t, repo, "--git-dir="+filepath.Join(tg.dir(), "git"), "diff-tree", "-r", want, res.Snapshot))
		}
		// The diff from index entries is git's diff-tree.
		ix, err := readIx(filepath.Join(tg.dir(), "git", "index-cur"))
		if err != nil {
			t.Fatal(err)
		}
		s, _ := tg.loadState()
		fromGo, ok := tg.diffEntries(s.Base, ix.entries)
		fromGit, err := diffTrees(ctx, tg.treeOnlyGit("index-cur"), s.Base, res.Snapshot)
		if !ok || err != nil || fmt.Sprint(fromGo) != fmt.Sprint(fromGit) {
			t.Errorf("round %d: diff from entries (%v) %v, git diff-tree (%v) %v", i, ok, fromGo, err, fromGit)
		}
		// The cache-tree the stager wrote is git's truth too: write-tree
		// answers from it, and every object it names is there.
		g := tg.privGit("index-cur")
		if out, err := g.run(ctx, "write-tree"); err != nil || strings.TrimSpace(string(out)) != res.Snapshot {
			t.Errorf("round %d: git write-tree of the stager's index: %v %s, want %s", i, err, out, res.Snapshot)
		}
		if out, err := g.run(ctx, "fsck", "--no-dangling", "--connectivity-only", res.Snapshot); err != nil {
			t.Errorf("round %d: git fsck: %v %s", i, err, out)
		}
		st := exec.Command("git", "status", "--porcelain", "--untracked-files=no")
		st.Dir = repo
		st.Env = append(os.Environ(), tg.privGit("index-cur").env...)
		out, err := st.CombinedOutput()
		if err != nil {
			t.Fatalf("round %d: git status: %v %s", i, err, out)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if len(l) > 1 && l[1] != ' ' {
				t.Errorf("round %d: the folder differs from the index the stager wrote: %q", i, l)
			}
		}
	}
}

// FuzzReadIx: any bytes as the private index (with a right checksum)
// either fail to read or read into entries that write and read back the
// same.
func FuzzReadIx(f *testing.F) {
	dir := f.TempDir()
	ix := &ixFile{entries: []ixEntry{{path: "a"}, {path: "b/c"}, {path: "b/d"}}}
	ix.entries[0].stat[ixMode] = 0o100644
	tb := &treeBuild{put: func([]byte) ([20]byte, error) { return [20]byte{1}, nil }}
	trees, _ := tb.buildTrees(ix.entries, "", "")
	seed := filepath.Join(dir, "seed")
	if err := ix.write(seed, trees, time.Time{}); err != nil {
		f.Fatal(err)
	}
	b, _ := os.ReadFile(seed)
	f.Add(b[:len(b)-20])
	f.Fuzz(func(t *testing.T, data []byte) {
		// The checksum is right: the fuzzer gets past it to the parser.
		sum := sha1.Sum(data)
		p := filepath.Join(t.TempDir(), "index")
		os.WriteFile(p, append(data, sum[:]...), 0o600)
		ix, err := readIx(p)
		if err != nil {
			return
		}
		if err := ix.write(p, trees, time.Unix(1, 0)); err != nil {
			t.Fatal(err)
		}
		cached, err := readIx(p) // what write kept in memory
		if err != nil {
			t.Fatal(err)
		}
		ixCache.Lock()
		delete(ixCache.m, p)
		ixCache.Unlock()
		again, err := readIx(p) // from the file
		if err != nil || len(again.entries) != len(ix.entries) {
			t.Fatalf("read back: %v, %d entries of %d", err, len(again.entries), len(ix.entries))
		}
		if fmt.Sprint(cached.entries) != fmt.Sprint(again.entries) || !bytes.Equal(cached.raw, again.raw) || len(cached.trees) != len(again.trees) {
			t.Fatalf("the cached index differs from the file:\n%v\n%v", cached.entries, again.entries)
		}
		for i := range ix.entries {
			if again.entries[i].path != ix.entries[i].path || again.entries[i].oid != ix.entries[i].oid {
				t.Fatalf("entry %d: %q, want %q", i, again.entries[i].path, ix.entries[i].path)
			}
		}
	})
}

// TestStageGoDeclines: what git refuses or treats specially is left to
// git (outside round stagego/02: NTFS short names of .gitmodules as
// symlinks), a file and a directory of one name are caught past entries
// sorting between them, and a cancelled review stops the stager
// (stagego/03).
func TestStageGoDeclines(t *testing.T) {
	for p, want := range map[string]bool{"a/b.go": true, ".github/x.yml": true, ".gitignore": true, "gitmod~1": false, "sub/gi7eba~1": false,
		".git/config": false, "a/.GIT/x": false, ".gitmodules": false, "a.": false, "a ": false, `a\b`: false, "a:b": false, "dir/": false, "a\x01": false} {
		if got := plainPath(p); got != want {
			t.Errorf("plainPath(%q) = %v, want %v", p, got, want)
		}
	}
	ents := func(ps ...string) []ixEntry {
		var out []ixEntry
		for _, p := range ps {
			out = append(out, ixEntry{path: p})
		}
		return out
	}
	if !fileAndDir(ents("a", "a-b", "a.c", "a/x")) || !fileAndDir(ents("a", "a/x")) || fileAndDir(ents("a", "a-b", "ab/x", "b")) {
		t.Error("fileAndDir misjudges")
	}
	gitEnv(t)
	ctx := context.Background()
	repo := t.TempDir()
	runGit(t, repo, "init", "-q", "-b", "main")
	writeFile(t, repo+"/f.txt", "x\n", 0o644)
	runGit(t, repo, "add", "-A")
	runGit(t, repo, "commit", "-q", "-m", "init")
	tg := &Target{Name: "go", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir()}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/etc/passwd", repo+"/.gitignore")
	before := stageGoCalls.Load()
	if _, err := Review(ctx, tg); err != nil {
		t.Fatal(err)
	}
	if stageGoCalls.Load() != before {
		t.Error("the Go stager staged a symlinked .gitignore (git refuses it)")
	}
	os.Remove(repo + "/.gitignore")
	writeFile(t, repo+"/f.txt", "y\n", 0o644)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := tg.stageGo(cancelled, nil, tg.privGit("index-cur").indexFile(), []string{"f.txt"}, nil); err == nil || errors.Is(err, errNotForGo) {
		t.Errorf("a cancelled stager: %v, want the context's error", err)
	}
}

// TestObjStoreMatchesGit: every blob the Go store answers for is what git
// cat-file gives, loose or packed; whole packed blobs are answered, deltas
// are left to git.
func TestObjStoreMatchesGit(t *testing.T) {
	gitEnv(t)
	repo := t.TempDir()
	runGit(t, repo, "init", "-q", "-b", "main")
	big := strings.Repeat("line of text that repeats\n", 4000)
	for i := 0; i < 20; i++ {
		writeFile(t, filepath.Join(repo, fmt.Sprintf("f%d.txt", i)), big+fmt.Sprint(i), 0o644)
	}
	writeFile(t, repo+"/empty", "", 0o644)
	runGit(t, repo, "add", "-A")
	runGit(t, repo, "commit", "-q", "-m", "one")
	loose := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(runGit(t, repo, "ls-tree", "-r", "HEAD")), "\n") {
		loose[strings.Fields(l)[2]] = true
	}
	check := func(wantWhole bool) {
		s := &objStore{dir: filepath.Join(repo, ".git", "objects")}
		defer s.close()
		answered := 0
		for oidHex := range loose {
			oid, _ := parseOID(oidHex)
			data, size, ok := s.read(oid, 1<<20)
			if !ok {
				if wantWhole {
					t.Errorf("%s: not answered", oidHex)
				}
				continue
			}
			answered++
			want := runGit(t, repo, "cat-file", "blob", oidHex)
			if string(data) != want || size != int64(len(want)) {
				t.Errorf("%s: %d bytes (size %d), git gives %d", oidHex, len(data), size, len(want))
			}
			if small, size, ok := s.read(oid, 3); !ok || (size > 3) != (small == nil) {
				t.Errorf("%s: with max 3: %d bytes, size %d, %v", oidHex, len(small), size, ok)
			}
		}
		if answered == 0 {
			t.Error("nothing answered")
		}
	}
	check(true) // loose
	runGit(t, repo, "-c", "pack.window=0", "repack", "-adq")
	check(true) // packed whole
	runGit(t, repo, "repack", "-adfq", "--depth=50", "--window=50")
	check(false) // deltas: git's job
}

// FuzzObjStore: any bytes as a loose object (compressed) or as a pack
// and its index fail cleanly or read within the limit.
func FuzzObjStore(f *testing.F) {
	f.Add([]byte("blob 3\x00abc"), []byte{0x33, 'x'}, uint8(0))
	f.Fuzz(func(t *testing.T, loose, pack []byte, at uint8) {
		dir := t.TempDir()
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write(loose)
		w.Close()
		p := filepath.Join(dir, "obj")
		os.WriteFile(p, z.Bytes(), 0o600)
		if data, size, err := readLooseBlob(p, 64); err == nil && (size > 64) != (data == nil) {
			t.Fatalf("loose: %d bytes, size %d", len(data), size)
		}
		os.WriteFile(p, pack, 0o600)
		pf, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer pf.Close()
		if data, size, err := readPackedBlob(pf, int64(at), 64); err == nil && (size > 64) != (data == nil) {
			t.Fatalf("packed: %d bytes, size %d", len(data), size)
		}
		if idx, err := readPackIdx(p); err == nil {
			idx.find([20]byte{1})
		}
	})
}

// TestStageGoAttributes: the folder's .gitattributes convert nothing in
// review's store (its info/attributes outranks them): the Go stager
// stages raw bytes, CRLF, $Id and an encoding that does not match
// included, and so does git; an attribute cannot make staging fail.
func TestStageGoAttributes(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := t.TempDir()
	runGit(t, repo, "init", "-q", "-b", "main")
	writeFile(t, repo+"/.gitattributes", "* text=auto\n*.id ident\n", 0o644)
	writeFile(t, repo+"/sub/.gitattributes", "*.txt eol=lf\n", 0o644)
	writeFile(t, repo+"/sub/a.txt", "a\r\n", 0o644)
	writeFile(t, repo+"/b.id", "b\n", 0o644)
	runGit(t, repo, "add", "-A")
	runGit(t, repo, "commit", "-q", "-m", "init")
	tg := &Target{Name: "attr", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir()}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	blob := func(rev, p string) string {
		return runGit(t, repo, "--git-dir="+filepath.Join(tg.dir(), "git"), "cat-file", "blob", rev+":"+p)
	}
	if s, _ := tg.loadState(); blob(s.Base, "sub/a.txt") != "a\r\n" {
		t.Errorf("baseline stored %q, the folder holds %q", blob(s.Base, "sub/a.txt"), "a\r\n")
	}
	for i, c := range []struct {
		change func()
		path   string
		want   string
	}{
		{func() { writeFile(t, repo+"/sub/a.txt", "crlf\r\n", 0o644) }, "sub/a.txt", "crlf\r\n"},
		{func() { writeFile(t, repo+"/b.id", "$Id: x $\n", 0o644) }, "b.id", "$Id: x $\n"},
		{func() { writeFile(t, repo+"/sub/.gitattributes", "*.txt working-tree-encoding=UTF-16\n", 0o644) }, "sub/.gitattributes", "*.txt working-tree-encoding=UTF-16\n"},
		{func() { writeFile(t, repo+"/sub/a.txt", "not UTF-16\n", 0o644) }, "sub/a.txt", "not UTF-16\n"},
	} {
		c.change()
		res, err := Review(ctx, tg)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if got := blob(res.Snapshot, c.path); got != c.want {
			t.Errorf("case %d: review stored %q, the folder holds %q", i, got, c.want)
		}
		if want := gitTreeOf(t, tg); res.Snapshot != want {
			t.Errorf("case %d: review's tree %s, git stages %s", i, res.Snapshot, want)
		}
	}
}

// TestSmudgeForGit: an index entry whose stat matches the folder but
// whose content does not (what a same-second rewrite leaves with git's
// whole-second times) is staged again by git once smudgeForGit marked it
// (outside round survey, 01, 03, 05).
func TestSmudgeForGit(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := t.TempDir()
	runGit(t, repo, "init", "-q", "-b", "main")
	writeFile(t, repo+"/Makefile", "all:\n\ttrue\n", 0o644)
	writeFile(t, repo+"/other", "x\n", 0o644)
	runGit(t, repo, "add", "-A")
	runGit(t, repo, "commit", "-q", "-m", "init")
	tg := &Target{Name: "sm", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir()}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	g := tg.privGit("index-cur")
	// The folder gets B, the index keeps A's name with B's stat.
	writeFile(t, repo+"/Makefile", "all:\n\tcurl\n", 0o644)
	ix, err := readIx(g.indexFile())
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	unix.Lstat(repo+"/Makefile", &st)
	for i, e := range ix.entries {
		if e.path == "Makefile" {
			ix.entries[i].stat = [10]uint32{uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec), uint32(st.Mtim.Sec), uint32(st.Mtim.Nsec),
				uint32(st.Dev), uint32(st.Ino), 0o100644, st.Uid, st.Gid, uint32(st.Size)}
			ix.entries[i].off = -1
		}
	}
	time.Sleep(1100 * time.Millisecond) // the index newer than the file: not racy to git
	if err := ix.write(g.indexFile(), nil, time.Time{}); err != nil {
		t.Fatal(err)
	}
	add := func() string {
		if _, err := g.run(ctx, append(append([]string{}, privFlags...), "add", "-A", "--", "Makefile")...); err != nil {
			t.Fatal(err)
		}
		out, _ := g.run(ctx, "ls-files", "-s", "Makefile")
		return strings.Fields(string(out))[1]
	}
	old := add()
	if err := smudgeForGit(g.indexFile(), []string{"Makefile"}); err != nil {
		t.Fatal(err)
	}
	if now := add(); now == old {
		t.Fatalf("git kept %s for the rewritten Makefile after the smudge", now)
	}
}
