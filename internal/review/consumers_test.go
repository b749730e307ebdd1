package review

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// Differential tests: our parsers against the real consumers — Node's
// JSON.parse (npm), Microsoft's jsonc-parser (VS Code), js-yaml, smol-toml
// (testdata/js, run by one long-lived node process) and `git config
// --list -z`. The property checked is the one review needs: every value
// the consumer reads, we read too, at the same path and with the same
// value (we may read more), and whenever the consumer's reading needed
// error recovery, we report an error (so PARSE-FAIL fires).

type oracle struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  *bufio.Writer
	out *bufio.Reader
}

type oracleAnswer struct {
	OK     bool       `json:"ok"`
	Errors int        `json:"errors"`
	Nodes  [][]string `json:"nodes"`
	Msg    string     `json:"msg"`
}

var (
	oracleOnce sync.Once
	theOracle  *oracle
	oracleErr  string
)

// consumers returns the node oracle, skipping (or failing under
// AIRLOCK_TEST_REQUIRE) when node or the npm packages are missing.
func consumers(t testing.TB) *oracle {
	oracleOnce.Do(func() {
		dir, _ := filepath.Abs(filepath.Join("testdata", "js"))
		if _, err := exec.LookPath("node"); err != nil {
			oracleErr = "node not installed"
			return
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "jsonc-parser")); err != nil {
			oracleErr = "testdata/js/node_modules missing (make testdeps)"
			return
		}
		cmd := exec.Command("node", filepath.Join(dir, "oracle.js"))
		cmd.Dir = dir
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			oracleErr = err.Error()
			return
		}
		theOracle = &oracle{cmd: cmd, in: bufio.NewWriter(in), out: bufio.NewReaderSize(out, 1<<20)}
	})
	if theOracle == nil {
		testenv.Missing(t, "%s", oracleErr)
	}
	return theOracle
}

func (o *oracle) ask(t testing.TB, kind string, src []byte) oracleAnswer {
	o.mu.Lock()
	defer o.mu.Unlock()
	req, _ := json.Marshal(map[string]string{"kind": kind, "src": base64.StdEncoding.EncodeToString(src)})
	o.in.Write(append(req, '\n'))
	if err := o.in.Flush(); err != nil {
		t.Fatalf("oracle: %v", err)
	}
	line, err := o.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	var a oracleAnswer
	if err := json.Unmarshal(line, &a); err != nil {
		t.Fatalf("oracle answer %q: %v", line, err)
	}
	return a
}

// norm makes strings comparable across UTF-16 and UTF-8 decoders: every
// run of replacement characters (lone surrogates, invalid bytes) is one.
func norm(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	for strings.Contains(s, "\uFFFD\uFFFD") {
		s = strings.ReplaceAll(s, "\uFFFD\uFFFD", "\uFFFD")
	}
	return s
}

func jsNumber(s string) float64 {
	switch s {
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	f, _ := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	return f
}

// missed lists consumer nodes we do not have (or have with another value).
// strictValues: compare scalar values of every kind, not only strings.
func missed(ours []Node, theirs [][]string, strictValues bool) []string {
	have := map[string][]Node{}
	for _, n := range ours {
		have[norm(n.Path)] = append(have[norm(n.Path)], n)
	}
	var out []string
	for _, c := range theirs {
		p, kind, val := norm(c[0]), c[1], c[2]
		if strings.Contains(p, "__proto__") || kind == "d" || complexKey(p) {
			continue
		}
		ns, ok := have[p]
		n := Node{}
		if ok {
			// The last node at a path is what the consumer keeps; with
			// several YAML documents any of them may be the one.
			n = ns[len(ns)-1]
			for _, x := range ns {
				if x.Kind == kind[0] && norm(x.Value) == norm(val) {
					n = x
				}
			}
		}
		if kind == "s" && n.Kind == 's' && strings.Join(strings.Fields(n.Value), " ") == strings.Join(strings.Fields(val), " ") {
			// Block scalar chomping at the end of input, and js-yaml keeping
			// trailing spaces when it folds a quoted scalar (the YAML spec
			// drops them, as yaml.v3 does): whitespace only.
			continue
		}
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%q missing", p))
		case kind == "s" && (n.Kind != 's' || norm(n.Value) != norm(val)):
			if n.Kind == 's' || strictValues {
				out = append(out, fmt.Sprintf("%q = %q, we read %q", p, val, n.Value))
			}
		case kind == "n" && strictValues && n.Kind == 'n' && jsNumber(n.Value) != jsNumber(val) && !math.IsNaN(jsNumber(val)):
			out = append(out, fmt.Sprintf("%q = %s, we read %s", p, val, n.Value))
		case (kind == "o" || kind == "a") && n.Kind != kind[0]:
			out = append(out, fmt.Sprintf("%q is %s, we read %c", p, kind, n.Kind))
		}
		if len(out) > 5 {
			break
		}
	}
	return out
}

// complexKey: a YAML mapping key that is not a scalar (js-yaml names it
// "[object Object]", "a,b" or "null"); no tool reads a config key by such
// a name.
func complexKey(p string) bool {
	for _, seg := range strings.Split(p, ".") {
		if seg == "[object Object]" || seg == "null" || seg == "?" || strings.Contains(seg, ",") {
			return true
		}
	}
	return false
}

// diffOne compares one input; it returns a description of a divergence
// that matters ("" if none).
func diffOne(t testing.TB, o *oracle, kind string, src []byte) string {
	a := o.ask(t, kind, src)
	var ours []Node
	var ourErr bool
	switch kind {
	case "json":
		n, err := ParseJSON(src)
		ours, ourErr = n, err != nil
		if a.OK && ourErr {
			return fmt.Sprintf("JSON.parse reads it, we fail: %v", err)
		}
	case "jsonc":
		n, errs := ParseJSONC(src)
		ours, ourErr = n, len(errs) > 0
		if a.Errors > 0 && !ourErr {
			return "jsonc-parser recovered from errors, we saw none"
		}
	case "yaml":
		n, err := ParseYAML(src)
		ours, ourErr = n, err != nil
	case "toml":
		n, err := ParseTOML(src)
		ours, ourErr = n, err != nil
	}
	if !a.OK || (ourErr && kind != "jsonc") {
		// The consumer refuses it (nothing runs), or we refuse it and
		// PARSE-FAIL flags it: either way nothing slips past.
		return ""
	}
	if m := missed(ours, a.Nodes, kind == "json" || kind == "jsonc"); len(m) > 0 {
		return strings.Join(m, "; ")
	}
	return ""
}

var diffSeeds = map[string][]string{
	"json": {`{"name":"a","scripts":{"postinstall":"node x.js","test":"t"},"n":[1,-2.5e3,true,null]}`, `{"a":"\ud800\u00e9\"\\/\b\f\n\r\t"}`,
		`[[[[{"x":1e999}]]]]`, "\ufeff{\"a\":{}}", `{"a":1,"a":{"b":2}}`},
	"jsonc": {"{\n // c\n \"tasks\": [{\"runOptions\": {\"runOn\": \"folderOpen\"},},],\n /* b */ \"x\": 1\n}",
		`{"a": 1 "b": [1 2] 'c': -}`, `{"a": {"b": "c\u0041"}, "d": tru, "e": 0.5e-7,`, `[1,,2,]`},
	"yaml": {"a: &x {yarnPath: y, q: [1, 2]}\nb: *x\n\"c\\x50\": 0x10\n? k\n: v\nm:\n  <<: *x\n", "on: [push, \"pull_request_t\\x61rget\"]\njobs:\n  t:\n    steps:\n      - run: |\n          echo hi\n",
		"--- \na: 1\n--- \nb: 'it''s'\n", "x: !!str 1\ny: ~\nz: [a, {b: c}]\n"},
	"toml": {"a.b.runner = \"x\"\n[t.'q.r']\n\"k\\u0065y\" = {v = 1, w = [1, 2]}\n[[arr]]\nx = 1\n[[arr]]\nx = 2\n", "s = '''\nmulti\n'''\nd = 1979-05-27T07:32:00Z\nf = 1e10\ni = 0x1F\n"},
}

// mutate derives an input from a seed with a few random edits biased to
// the bytes that matter to these grammars.
func mutate(r *rand.Rand, seeds []string) []byte {
	b := []byte(seeds[r.Intn(len(seeds))])
	alphabet := []byte("{}[]:,\"'\\/*#\n\r\t -.0123456789eEtrufalsnxu&*!?|>{}=<'\u00e9\ufeff")
	for i := r.Intn(4) + 1; i > 0; i-- {
		if len(b) == 0 {
			b = append(b, alphabet[r.Intn(len(alphabet))])
			continue
		}
		pos := r.Intn(len(b) + 1)
		switch r.Intn(4) {
		case 0: // insert
			b = append(b[:pos], append([]byte{alphabet[r.Intn(len(alphabet))]}, b[pos:]...)...)
		case 1: // delete
			if pos < len(b) {
				b = append(b[:pos], b[pos+1:]...)
			}
		case 2: // replace
			if pos < len(b) {
				b[pos] = alphabet[r.Intn(len(alphabet))]
			}
		case 3: // splice in a piece of another seed
			o := seeds[r.Intn(len(seeds))]
			i, j := r.Intn(len(o)), r.Intn(len(o))
			if i > j {
				i, j = j, i
			}
			b = append(b[:pos], append([]byte(o[i:j]), b[pos:]...)...)
		}
	}
	return b
}

// diffCount is how many mutated inputs each differential test tries
// (AIRLOCK_DIFF_N overrides; CI runs the default).
func diffCount() int {
	if n, err := strconv.Atoi(os.Getenv("AIRLOCK_DIFF_N")); err == nil && n > 0 {
		return n
	}
	return 1500
}

func TestParsersMatchConsumers(t *testing.T) {
	o := consumers(t)
	for _, kind := range []string{"json", "jsonc", "yaml", "toml"} {
		t.Run(kind, func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(len(kind))))
			n, fails := diffCount(), 0
			inputs := [][]byte{}
			for _, s := range diffSeeds[kind] {
				inputs = append(inputs, []byte(s))
			}
			for i := 0; i < n; i++ {
				inputs = append(inputs, mutate(r, diffSeeds[kind]))
			}
			for _, in := range inputs {
				if d := diffOne(t, o, kind, in); d != "" {
					if fails++; fails <= 30 {
						t.Errorf("%s %q: %s", kind, in, d)
					}
				}
			}
			t.Logf("%s: %d inputs, %d divergences", kind, len(inputs), fails)
		})
	}
}

// gitConfigList is what git reads from a config file: key=value pairs
// (key alone for a bare boolean), or ok=false when git refuses the file.
func gitConfigList(t testing.TB, dir string, src []byte) ([]string, bool) {
	p := filepath.Join(dir, "config")
	if err := os.WriteFile(p, src, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "config", "--list", "-z", "--no-includes", "-f", p)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	var kv []string
	for _, rec := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		if len(rec) > 0 {
			kv = append(kv, string(rec))
		}
	}
	return kv, true
}

func ourConfigList(src []byte) ([]string, int) {
	es, errs := ParseGitConfig(src)
	var kv []string
	for _, e := range es {
		k := e.Key()
		if i := strings.IndexByte(k, 0); i >= 0 {
			k = k[:i] // git hands keys to its callbacks as C strings
		}
		if e.NoValue || strings.IndexByte(e.Key(), 0) >= 0 {
			kv = append(kv, k)
		} else {
			kv = append(kv, k+"\n"+e.Value)
		}
	}
	return kv, len(errs)
}

var gitSeeds = []string{"[core]\n\tfsmonitor = \"/tmp/x y\" ; c\n[CORE]HooksPath=/h\n", "[a \"B.c\"]\n\tk = v \\\n  w\n[s.Sub]\n\tflag\n",
	"[alias]\n\tst = \"!echo\\thi\" # x\n[x]\r\n\ty = 1\r\n", "[remote \"o\\\"r\"]\n\turl = a\\\\b\\n\n", "\ufeff[i]p=\"\r\"\n[submodule \"x\"]\n\tupdate = !sh\n"}

func TestGitConfigMatchesGit(t *testing.T) {
	gitOrSkip(t)
	dir := t.TempDir()
	r := rand.New(rand.NewSource(7))
	n, fails := diffCount()/5, 0 // one git process per input
	for i := 0; i < n; i++ {
		src := mutate(r, gitSeeds)
		if d := diffGitConfig(t, dir, src); d != "" {
			if fails++; fails <= 5 {
				t.Errorf("%q: %s", src, d)
			}
		}
	}
	t.Logf("git config: %d inputs, %d divergences", n, fails)
}

func diffGitConfig(t testing.TB, dir string, src []byte) string {
	theirs, ok := gitConfigList(t, dir, src)
	if !ok {
		return "" // git refuses the file: nothing runs
	}
	ours, nerr := ourConfigList(src)
	have := map[string]int{}
	for _, kv := range ours {
		have[kv]++
	}
	for _, kv := range theirs {
		if k, _, _ := strings.Cut(kv, "\n"); strings.HasSuffix(k, ".") {
			continue // a NUL cut the key before its name: no variable git looks up
		}
		if have[kv] == 0 {
			if !utf8.ValidString(kv) {
				kv = strconv.Quote(kv)
			}
			return fmt.Sprintf("git reads %q, we do not (we have %q, %d errors)", kv, ours, nerr)
		}
		have[kv]--
	}
	return ""
}

// Fuzzers driving the same comparisons (go test -fuzz FuzzDiff...).
func FuzzDiffJSON(f *testing.F) {
	for _, s := range append(diffSeeds["json"], diffSeeds["jsonc"]...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o := consumers(t)
		for _, kind := range []string{"json", "jsonc"} {
			if d := diffOne(t, o, kind, b); d != "" {
				t.Fatalf("%s %q: %s", kind, b, d)
			}
		}
	})
}

func FuzzDiffYAMLTOML(f *testing.F) {
	for _, s := range append(diffSeeds["yaml"], diffSeeds["toml"]...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o := consumers(t)
		for _, kind := range []string{"yaml", "toml"} {
			if d := diffOne(t, o, kind, b); d != "" {
				t.Fatalf("%s %q: %s", kind, b, d)
			}
		}
	})
}

func FuzzDiffGitConfig(f *testing.F) {
	for _, s := range gitSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		gitOrSkip(t)
		if d := diffGitConfig(t, t.TempDir(), b); d != "" {
			t.Fatal(d)
		}
	})
}
