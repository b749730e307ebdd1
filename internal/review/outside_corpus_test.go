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
	type tally struct{ high, medium, missed int }
	byClass := map[string]*tally{}
	var total tally
	benign, noisy := 0, 0
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
			tl := byClass[class]
			if tl == nil {
				tl = &tally{}
				byClass[class] = tl
			}
			switch sev {
			case High:
				tl.high++
				total.high++
			case Medium:
				tl.medium++
				total.medium++
			default:
				tl.missed++
				total.missed++
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
			}
			switch {
			case len(highs) > 0 && !known:
				t.Errorf("%s: benign case gets high flags %v (fix it, or list it in knownNoise with the reason)", key, highs)
			case len(highs) == 0 && known:
				t.Errorf("%s: no longer noisy; remove it from knownNoise", key)
			}
		}
	}
	var classes []string
	for c := range byClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	var b strings.Builder
	fmt.Fprintf(&b, "outside corpus recall (high / medium / missed of cases):\n")
	for _, c := range classes {
		tl := byClass[c]
		n := tl.high + tl.medium + tl.missed
		fmt.Fprintf(&b, "  %-28s %3d/%3d high (%3.0f%%), %2d medium, %2d missed\n", c, tl.high, n, pct(tl.high, n), tl.medium, tl.missed)
	}
	n := total.high + total.medium + total.missed
	fmt.Fprintf(&b, "  %-28s %3d/%3d high (%3.0f%%), %2d medium, %2d missed\n", "ALL", total.high, n, pct(total.high, n), total.medium, total.missed)
	fmt.Fprintf(&b, "  benign: %d cases, %d with a high flag", benign, noisy)
	t.Log(b.String())
}

func pct(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(a) / float64(n)
}
