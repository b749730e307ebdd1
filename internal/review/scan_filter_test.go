package review

import (
	"strings"
	"testing"
)

// TestRuleFilterNeverHides: for paths made from every rule's own globs
// (and a few plain ones), any rule applies() accepts is among the filter's
// candidates: the filter only saves work, it never changes a finding.
func TestRuleFilterNeverHides(t *testing.T) {
	rules := defaultRules()
	rf := newRuleFilter(rules)
	paths := map[string]bool{"main.go": true, "a/b/c.txt": true, "README.md": true, "x/.git": true}
	for _, r := range rules {
		for _, g := range append(append([]string{}, r.Paths...), r.Not...) {
			for _, fill := range []string{"", "d", "d/e"} {
				if p := materialize(g, fill); p != "" {
					paths[p] = true
					paths["sub/"+p] = true
					paths[strings.ToUpper(p)] = true
				}
			}
		}
	}
	s := &scanCtx{files: map[string]*File{}, agentIncluded: map[string]bool{}, tcache: map[string][]byte{}, lifecycle: map[string]map[string]string{}, rules: rules}
	mask := make([]bool, len(rules))
	checked := 0
	for p := range paths {
		for _, flagged := range []bool{false, true} {
			// A file a git config includes, or an agent file includes.
			f := &File{Path: p, NewMode: 0o100644, New: []byte("x\n"), gitConfig: flagged}
			s.agentIncluded[p] = flagged
			segs := strings.Split(strings.ToLower(p), "/")
			rf.candidates(f, segs, s, mask)
			for i, r := range rules {
				if r.applies(f, segs, s) {
					checked++
					if !mask[i] {
						t.Errorf("%s applies to %q (flagged %v), the filter left it out", r.ID, p, flagged)
					}
				}
			}
		}
	}
	if len(rf.always) > len(rules)/2 || checked < len(rules) {
		t.Errorf("filter: %d of %d rules always checked; %d rule/path pairs applied", len(rf.always), len(rules), checked)
	}
}

// materialize turns a glob into a path it matches: "**" becomes fill,
// every other wildcard an "x".
func materialize(glob, fill string) string {
	var out []string
	for _, sg := range strings.Split(strings.TrimPrefix(glob, "/"), "/") {
		if sg == "**" {
			if fill != "" {
				out = append(out, fill)
			}
			continue
		}
		var b strings.Builder
		for i := 0; i < len(sg); i++ {
			switch c := sg[i]; c {
			case '*', '?':
				b.WriteByte('x')
			case '[':
				if j := strings.IndexByte(sg[i:], ']'); j > 1 {
					b.WriteByte(sg[i+1])
					i += j
					continue
				}
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
		}
		out = append(out, b.String())
	}
	return strings.Join(out, "/")
}
