package review

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The outside corpus (issue 28, item 8): cases written by testers who did
// not write review, in testdata/outside/SET/*.txtar (same format as
// testdata/attack; benign ones in testdata/outside/SET/benign/). Every case
// found there is scanned; recall is printed per class. A case that does
// not get a high flag fails the test unless knownMisses lists it with a
// reason, so new cases never break CI before they are looked at, and a
// fix must remove its entry (a listed case that now passes fails too).
// The same for benign cases that get a high flag and knownNoise.

func TestOutsideCorpus(t *testing.T) {
	sets, _ := filepath.Glob(filepath.Join("testdata", "outside", "*"))
	byClass := map[string]*tally{}
	bySet := map[string]map[string]*tally{} // set → class → tally: class names repeat across sets
	var total tally
	benign, noisy := 0, 0
	benignBySet, noisyBySet := map[string]int{}, map[string]int{}
	verbose := os.Getenv("OUTSIDE_VERBOSE") != ""
	for _, set := range sets {
		if fi, err := os.Stat(set); err != nil || !fi.IsDir() {
			continue
		}
		names, _ := filepath.Glob(filepath.Join(set, "*.txtar"))
		for _, n := range names {
			key := filepath.Base(set) + "/" + strings.TrimSuffix(filepath.Base(n), ".txtar")
			c, err := parseCase(n)
			if err != nil {
				t.Errorf("%s: %v", key, err)
				continue
			}
			sev, got := maxFinding(c.scan())
			class := c.class
			if class == "" {
				class = "(no class)"
			}
			setName := filepath.Base(set)
			if bySet[setName] == nil {
				bySet[setName] = map[string]*tally{}
			}
			total.add(sev)
			for _, m := range []map[string]*tally{byClass, bySet[setName]} {
				if m[class] == nil {
					m[class] = &tally{}
				}
				m[class].add(sev)
			}
			why, known := knownMisses[key]
			switch {
			case sev != High && !known:
				t.Errorf("%s [%s]: max severity %s, want high (fix it, or list it in knownMisses with the reason); findings %v", key, class, sev, got)
			case sev == High && known:
				t.Errorf("%s: now high; remove it from knownMisses (%s)", key, why)
			case sev != High && verbose:
				t.Logf("known miss %s [%s] %s: %s; findings %v", key, class, sev, why, got)
			}
		}
		bnames, _ := filepath.Glob(filepath.Join(set, "benign", "*.txtar"))
		for _, n := range bnames {
			key := filepath.Base(set) + "/benign/" + strings.TrimSuffix(filepath.Base(n), ".txtar")
			c, err := parseCase(n)
			if err != nil {
				t.Errorf("%s: %v", key, err)
				continue
			}
			benign++
			benignBySet[filepath.Base(set)]++
			var highs []string
			for _, r := range c.scan() {
				for _, f := range r.Findings {
					if f.Severity == High {
						highs = append(highs, r.File.Path+":"+f.Rule+" ("+clip(f.Detail)+")")
					}
				}
			}
			_, known := knownNoise[key]
			if len(highs) > 0 {
				noisy++
				noisyBySet[filepath.Base(set)]++
			}
			switch {
			case len(highs) > 0 && !known:
				t.Errorf("%s: benign case gets high flags %v (fix it, or list it in knownNoise with the reason)", key, highs)
			case len(highs) == 0 && known:
				t.Errorf("%s: no longer noisy; remove it from knownNoise", key)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "outside corpus recall (high / medium / missed of cases):\n")
	writeTallies(&b, "  ", byClass)
	writeTally(&b, "  ", "ALL", total.high, total.medium, total.missed)
	fmt.Fprintf(&b, "  benign: %d cases, %d with a high flag\n", benign, noisy)
	var setNames []string
	for s := range bySet {
		setNames = append(setNames, s)
	}
	sort.Strings(setNames)
	for _, s := range setNames {
		var all tally
		for _, tl := range bySet[s] {
			all.high, all.medium, all.missed = all.high+tl.high, all.medium+tl.medium, all.missed+tl.missed
		}
		fmt.Fprintf(&b, "set %s (benign: %d cases, %d with a high flag):\n", s, benignBySet[s], noisyBySet[s])
		writeTallies(&b, "  ", bySet[s])
		writeTally(&b, "  ", "ALL "+s, all.high, all.medium, all.missed)
	}
	t.Log(b.String())
}

// tally counts an outside corpus's cases by the severity they get.
type tally struct{ high, medium, missed int }

func (t *tally) add(sev Severity) {
	switch sev {
	case High:
		t.high++
	case Medium:
		t.medium++
	default:
		t.missed++
	}
}

// writeTallies writes one line per class, in class order.
func writeTallies(b *strings.Builder, indent string, m map[string]*tally) {
	var classes []string
	for c := range m {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		writeTally(b, indent, c, m[c].high, m[c].medium, m[c].missed)
	}
}

func writeTally(b *strings.Builder, indent, name string, high, medium, missed int) {
	n := high + medium + missed
	fmt.Fprintf(b, "%s%-28s %3d/%3d high (%3.0f%%), %2d medium, %2d missed\n", indent, name, high, n, pct(high, n), medium, missed)
}

func pct(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(a) / float64(n)
}
