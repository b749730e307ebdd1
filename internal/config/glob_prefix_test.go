package config

import (
	"math/rand"
	"strings"
	"testing"
)

// matchPrefix (one table) agrees with matching every prefix in turn, the
// definition, on random patterns and paths (deep ones included).
func TestMatchPrefixAgrees(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	names := []string{"a", "b", "d", ".git", "x.pem", "*", "**", "?", "[ab]", "*.pem", "d*"}
	pick := func(n int, glob bool) []string {
		var out []string
		for i := 0; i < n; i++ {
			s := names[r.Intn(len(names))]
			if !glob && strings.ContainsAny(s, "*?[") {
				s = "z"
			}
			out = append(out, s)
		}
		return out
	}
	for i := 0; i < 20000; i++ {
		segs, parts := pick(1+r.Intn(4), true), pick(1+r.Intn(12), false)
		last := len(parts) - r.Intn(2)
		want := false
		for n := 1; n <= last; n++ {
			if matchSegs(segs, parts[:n]) {
				want = true
				break
			}
		}
		if got := matchPrefix(segs, parts, last); got != want {
			t.Fatalf("segs %q parts %q last %d: got %v want %v", segs, parts, last, got, want)
		}
	}
	deep := strings.Repeat("d/", 300) + "f"
	if !MatchGlob("**/f", deep) || MatchGlob("/x/**", deep) {
		t.Error("deep path")
	}
}
