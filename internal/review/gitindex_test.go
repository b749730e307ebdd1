package review

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// readIndex lists what `git ls-files -s` lists, for every index version
// and with long, odd and unicode paths, a symlink, an executable and a
// gitlink.
func TestReadIndexMatchesGit(t *testing.T) {
	gitEnv(t)
	for _, v := range []string{"2", "3", "4"} {
		dir := t.TempDir()
		runGit(t, dir, "init", "-q")
		for i, p := range []string{"a", "b/c.txt", "b/" + strings.Repeat("long", 40) + ".go", "d/é ü/x", "e f/g\th", "z.sh"} {
			writeFile(t, filepath.Join(dir, p), fmt.Sprint(i), 0o644)
		}
		os.Chmod(filepath.Join(dir, "z.sh"), 0o755)
		os.Symlink("a", filepath.Join(dir, "link"))
		runGit(t, dir, "add", "-A")
		sub := runGit(t, dir, "hash-object", "-w", "a")
		runGit(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+strings.TrimSpace(sub)+",mod")
		if v == "3" {
			writeFile(t, filepath.Join(dir, "ita"), "x", 0o644)
			runGit(t, dir, "add", "-N", "ita") // an extended flag
		}
		runGit(t, dir, "update-index", "--index-version", v)
		readIndexMutated(t, filepath.Join(dir, ".git", "index"))
		es, err := readIndex(filepath.Join(dir, ".git", "index"), 20)
		if err != nil {
			t.Fatalf("version %s: %v", v, err)
		}
		var got []string
		for _, e := range es {
			got = append(got, fmt.Sprintf("%o %s", e.mode, e.path))
		}
		var want []string
		for _, rec := range strings.Split(runGit(t, dir, "ls-files", "-z", "-s"), "\x00") {
			if tab := strings.IndexByte(rec, '\t'); tab > 0 {
				want = append(want, strings.Fields(rec[:tab])[0]+" "+rec[tab+1:])
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("version %s:\n got %q\nwant %q", v, got, want)
		}
	}
}

// readIndexMutated reads corrupted and cut copies of an index: errors,
// never a panic.
func readIndexMutated(t *testing.T, file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "index")
	for i := 0; i < 800; i++ {
		c := append([]byte{}, b...)
		if i%3 == 0 {
			c = c[:i%len(c)]
		} else {
			c[(i*7919)%len(c)] ^= byte(i)
		}
		os.WriteFile(bad, c, 0o644)
		readIndexAny(bad)
	}
}

// FuzzReadIndex: any bytes where review's private index should be give
// entries or an error, never a panic or a runaway allocation; the seeds
// are real index files of every version.
func FuzzReadIndex(f *testing.F) {
	gitEnv(f)
	for _, v := range []string{"2", "3", "4"} {
		dir := f.TempDir()
		runGit(f, dir, "init", "-q")
		for _, p := range []string{"a", "b/c.txt", "b/d/é e.go"} {
			writeFile(f, filepath.Join(dir, p), p, 0o644)
		}
		runGit(f, dir, "add", "-A")
		runGit(f, dir, "update-index", "--index-version", v)
		b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	file := filepath.Join(f.TempDir(), "index")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		es, err := readIndexAny(file)
		if err == nil && len(es) > len(b) {
			t.Fatalf("%d entries from %d bytes", len(es), len(b))
		}
	})
}
