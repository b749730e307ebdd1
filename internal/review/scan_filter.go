package review

import "strings"

// ruleFilter picks, from a file's path alone, the rules applies() needs
// to look at. Every segment of a glob but "**" matches one segment of
// the path, so a glob with a literal segment needs a path with that
// segment, and a glob whose last segment is not "**" needs a last
// segment with its literal prefix or suffix. A rule whose every glob is
// so bounded can only apply to such a path, to a file its flag reaches
// (GitConfig, AgentText, Hooks: checked per file), or through an alias
// (a file an include makes a config), which scanWith checks. For 5,000
// changed files the glob matching of every rule against every path was
// the largest part of the scan.
type ruleFilter struct {
	byName  map[string][]int // a literal segment -> rules
	affixes []ruleAffix
	always  []int // rules to check for any file
	flagged []int // rules with GitConfig, AgentText or Hooks
	rules   []*Rule
}

// ruleAffix: the path's last segment must start (prefix) or end with s.
type ruleAffix struct {
	s      string
	prefix bool
	rule   int
}

func newRuleFilter(rules []*Rule) *ruleFilter {
	rf := &ruleFilter{byName: map[string][]int{}, rules: rules}
	for i, r := range rules {
		paths, _ := r.compiled()
		if r.GitConfig || r.AgentText || r.Hooks {
			rf.flagged = append(rf.flagged, i)
		}
		var names []string
		var affixes []ruleAffix
		wide := len(paths) == 0
		for _, p := range paths {
			if lit := lastLiteral(p); lit != "" {
				names = append(names, lit)
			} else if a, ok := lastAffix(p[len(p)-1]); ok {
				a.rule = i
				affixes = append(affixes, a)
			} else {
				wide = true
			}
		}
		if wide {
			rf.always = append(rf.always, i)
			continue
		}
		for _, n := range names {
			rf.byName[n] = append(rf.byName[n], i)
		}
		rf.affixes = append(rf.affixes, affixes...)
	}
	return rf
}

// lastLiteral is a compiled glob's last literal segment, or "".
func lastLiteral(p []string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i][0] == '=' {
			return p[i][1:]
		}
	}
	return ""
}

// lastAffix is what any last path segment a compiled last glob segment
// matches must end (or else start) with.
func lastAffix(sg string) (ruleAffix, bool) {
	switch sg[0] {
	case '>':
		return ruleAffix{s: sg[1:]}, sg != ">"
	case '~':
		g := sg[1:]
		if strings.ContainsRune(g, '\\') {
			return ruleAffix{}, false
		}
		if suf := g[strings.LastIndexAny(g, "*?]")+1:]; suf != "" {
			return ruleAffix{s: suf}, true
		}
		if pre := g[:max(strings.IndexAny(g, "*?["), 0)]; pre != "" {
			return ruleAffix{s: pre, prefix: true}, true
		}
	}
	return ruleAffix{}, false
}

// candidates marks in mask (one per rule, cleared first) the rules that
// may apply to f, whose lower-cased path segments are segs.
func (rf *ruleFilter) candidates(f *File, segs []string, s *scanCtx, mask []bool) {
	clear(mask)
	for _, i := range rf.always {
		mask[i] = true
	}
	for _, sg := range segs {
		for _, i := range rf.byName[sg] {
			mask[i] = true
		}
	}
	base := segs[len(segs)-1]
	for _, a := range rf.affixes {
		if a.prefix && strings.HasPrefix(base, a.s) || !a.prefix && strings.HasSuffix(base, a.s) {
			mask[a.rule] = true
		}
	}
	for _, i := range rf.flagged {
		r := rf.rules[i]
		if r.GitConfig && f.gitConfig || r.AgentText && s.agentIncluded[f.Path] || r.Hooks && s.host.hookOrigin(f.Path) != "" {
			mask[i] = true
		}
	}
}
