package review

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Our unified diff must apply with GNU patch / git apply to give b.
func TestUnifiedDiffApplies(t *testing.T) {
	gitOrSkip(t)
	cases := [][2]string{
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"", "new\nfile\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "0\n1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n"},
		{"x\ny", "x\nz"},
		{"same\n", "same\nmore\n"},
		{strings.Repeat("l\n", 50), strings.Repeat("l\n", 20) + "mid\n" + strings.Repeat("l\n", 30)},
	}
	for i, c := range cases {
		dir := t.TempDir()
		runGit(t, dir, "init", "-q")
		var aMode uint32 = ModeFile
		if c[0] == "" {
			aMode = 0
		} else {
			os.WriteFile(filepath.Join(dir, "f.txt"), []byte(c[0]), 0o644)
		}
		d := UnifiedDiff("f.txt", []byte(c[0]), []byte(c[1]), aMode, ModeFile)
		d = strings.Replace(d, "diff --airlock", "diff --git", 1)
		cmd := exec.Command("git", "apply", "-")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(d)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("case %d: git apply: %v\n%s\n%s", i, err, out, d)
			continue
		}
		got, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
		if string(got) != c[1] {
			t.Errorf("case %d: got %q want %q\n%s", i, got, c[1], d)
		}
	}
}

// A large file with scattered edits diffs to small hunks that apply.
func TestUnifiedDiffLarge(t *testing.T) {
	gitOrSkip(t)
	var a, b strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&a, "line %d\n", i)
		switch {
		case i%5000 == 17:
			fmt.Fprintf(&b, "changed %d\n", i)
		case i%7000 == 3:
		default:
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	dir := t.TempDir()
	runGit(t, dir, "init", "-q")
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte(a.String()), 0o644)
	d := UnifiedDiff("f.txt", []byte(a.String()), []byte(b.String()), ModeFile, ModeFile)
	if n := strings.Count(d, "\n"); n > 80 {
		t.Fatalf("diff of 7 edits has %d lines", n)
	}
	cmd := exec.Command("git", "apply", "-")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(strings.Replace(d, "diff --airlock", "diff --git", 1))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s\n%s", err, out, d)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != b.String() {
		t.Fatal("applied diff does not give b")
	}
}

// history3/05: a version with a NUL is still a script node runs; its
// escaped view shows every byte a terminal would hide or act on.
func TestEscapeBytes(t *testing.T) {
	for in, want := range map[string]string{
		"require(\"x\") // \x00\n":    `require("x") // \x00` + "\n",
		"a\x1b[2K\rb\tc\\d\n":         `a\x1b[2K\x0db` + "\t" + `c\\d` + "\n",
		"caf\xc3\xa9 \xff\xfe \u0085": `café \xff\xfe \xc2\x85`,
	} {
		if got := EscapeBytes([]byte(in)); got != want {
			t.Errorf("EscapeBytes(%q) = %q, want %q", in, got, want)
		}
	}
}
