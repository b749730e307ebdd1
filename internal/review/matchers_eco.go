package review

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strings"
)

// parseFail fires when a config file's new version cannot be read the way
// its consumer reads it (and its old version could): the consumer may act
// on keys we did not see, so this is flagged on its own.
func parseFail() Matcher {
	return func(f *File, s *scanCtx) []Hit {
		cur := s.doc(f, false)
		if cur == nil || cur.err == nil {
			return nil
		}
		if old := s.doc(f, true); old != nil && old.err != nil {
			return nil // it was already unreadable before
		}
		fm, _ := formatOf(f.Path)
		line := 0
		var je *jsonError
		if errors.As(cur.err, &je) {
			line = je.Line
		}
		return []Hit{{Line: line, Detail: clip("could not parse " + path.Base(f.Path) + " the way " + fm.consumer + " does: " + cur.err.Error())}}
	}
}

// rubyRisky are Ruby constructs that run commands or load other code;
// a Gemfile or gemspec line with one is code, not a dependency list.
var rubyRisky = lazyRE("`|%x|\\b(system|exec|spawn|fork|eval|instance_eval|class_eval|module_eval|eval_gemfile|send|public_send|open|syscall|binding)\\b|\\b(require_relative|require|load)\\s*[(\\s'\"]|IO\\.|Kernel|Open3|File\\.|Dir\\.|Process|Net::|URI|ObjectSpace|Marshal|__dir__|\\$\\(")

// rubyDSL are the lines a plain Gemfile is made of.
var rubyDSL = lazyRE(`^\s*(#.*)?$|^\s*(source|gem|gemspec|ruby|group|platforms?|path|git|github|git_source|plugin|install_if|end|\})\b`)

// rubyCode fires on added lines of a Ruby file bundler evaluates that are
// not plain dependency declarations, or that call out to the system.
func rubyCode() Matcher {
	return addedLineFunc(func(l string) bool { return rubyRisky().FindString(l) != "" || !rubyDSL().MatchString(l) })
}

// xmlElem is one element of an XML document with its local name, line,
// attributes and direct text.
type xmlElem struct {
	name  string
	line  int
	attrs map[string]string
	text  string
	path  string // ancestor names joined with "/"
}

// parseXML reads every element with a real XML tokenizer (entities,
// CDATA and namespaces resolved); it fails closed on syntax errors.
func parseXML(src []byte) ([]xmlElem, error) {
	d := xml.NewDecoder(bytes.NewReader(src))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	var out []xmlElem
	var stack []int
	for len(out) < 100000 {
		off := d.InputOffset()
		t, err := d.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch x := t.(type) {
		case xml.StartElement:
			e := xmlElem{name: strings.ToLower(x.Name.Local), line: 1 + bytes.Count(src[:off], []byte("\n")), attrs: map[string]string{}}
			for _, a := range x.Attr {
				e.attrs[strings.ToLower(a.Name.Local)] = a.Value
			}
			var names []string
			for _, i := range stack {
				names = append(names, out[i].name)
			}
			e.path = strings.Join(append(names, e.name), "/")
			out = append(out, e)
			stack = append(stack, len(out)-1)
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			if len(stack) > 0 {
				out[stack[len(stack)-1]].text += strings.TrimSpace(string(x))
			}
		}
	}
	return out, errors.New("xml: too many elements")
}

// xmlSigs maps "path|attrs|text" of every element to a count, so changes
// can be found by comparing old and new.
func xmlSigs(es []xmlElem) map[string]int {
	m := map[string]int{}
	for _, e := range es {
		m[xmlSig(e)]++
	}
	return m
}

func xmlSig(e xmlElem) string {
	var b strings.Builder
	b.WriteString(e.path + "|" + e.text)
	for k, v := range e.attrs {
		b.WriteString("|" + k + "=" + v)
	}
	return b.String()
}

// newXML returns the elements of f's new version that the old one did
// not have (and whether the new version parsed).
func newXML(f *File) ([]xmlElem, error) {
	cur, err := parseXML(f.New)
	var old map[string]int
	if f.Old != nil {
		o, _ := parseXML(f.Old)
		old = xmlSigs(o)
	}
	var out []xmlElem
	for _, e := range cur {
		if sig := xmlSig(e); old[sig] > 0 {
			old[sig]--
			continue
		}
		out = append(out, e)
	}
	return out, err
}

// Maven plugins that exist to run commands or scripts.
var mavenExecPlugins = lazyRE(`(?i)^(exec-maven-plugin|maven-antrun-plugin|gmaven.*|groovy-maven-plugin|gmavenplus-plugin|maven-scripting-plugin|beanshell-maven-plugin|jruby-maven-plugin|frontend-maven-plugin|maven-invoker-plugin|properties-maven-plugin|build-helper-maven-plugin|.*-exec-.*|.*script.*)$`)

// Phases that run before or during compilation, so on nearly any build.
var mavenEarlyPhases = map[string]bool{"validate": true, "initialize": true, "generate-sources": true, "process-sources": true,
	"generate-resources": true, "process-resources": true, "compile": true, "process-classes": true}

// mavenPlugin fires on added or changed plugin declarations in a pom that
// run commands (exec/antrun/groovy...), are named through a ${property},
// load as build extensions, or bind an execution to an early phase; and
// when the pom is not well-formed XML.
func mavenPlugin() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.New == nil {
			return nil
		}
		es, err := newXML(f)
		var hits []Hit
		if err != nil {
			hits = append(hits, Hit{Detail: clip("could not parse pom.xml the way Maven does: " + err.Error())})
		}
		for _, e := range es {
			inPlugin := strings.Contains(e.path, "/plugin/") || strings.Contains(e.path, "/extension/")
			switch {
			case e.name == "artifactid" && inPlugin && (mavenExecPlugins().MatchString(e.text) || strings.Contains(e.text, "${")):
				hits = append(hits, Hit{Line: e.line, Detail: "plugin " + clip(e.text)})
			case e.name == "phase" && inPlugin && (mavenEarlyPhases[strings.ToLower(e.text)] || strings.Contains(e.text, "${")):
				hits = append(hits, Hit{Line: e.line, Detail: "execution bound to " + clip(e.text)})
			case e.name == "extensions" && inPlugin && strings.EqualFold(e.text, "true"):
				hits = append(hits, Hit{Line: e.line, Detail: "plugin loaded as a build extension"})
			}
		}
		return hits
	}
}

// msbuildExec fires on added MSBuild elements that run commands or pull in
// other build logic: Exec, Target, UsingTask, Import, inline tasks, and
// targets hooked in with InitialTargets/BeforeTargets/AfterTargets.
func msbuildExec() Matcher {
	// Pre/PostBuildEvent are shell commands the common targets run;
	// analyzers and source generators (an Analyzer item, or a project
	// referenced as one) run inside the compiler, and the IDE's design-time
	// build runs them on open.
	risky := map[string]bool{"exec": true, "target": true, "usingtask": true, "import": true, "importgroup": true, "task": true,
		"prebuildevent": true, "postbuildevent": true, "analyzer": true}
	return func(f *File, _ *scanCtx) []Hit {
		if f.New == nil {
			return nil
		}
		es, err := newXML(f)
		var hits []Hit
		if err != nil {
			hits = append(hits, Hit{Detail: clip("could not parse " + path.Base(f.Path) + " the way MSBuild does: " + err.Error())})
		}
		for _, e := range es {
			_, init := e.attrs["initialtargets"]
			analyzer := strings.EqualFold(e.attrs["outputitemtype"], "analyzer")
			if risky[e.name] || init || analyzer {
				hits = append(hits, Hit{Line: e.line, Detail: clip("<" + e.name + "> " + e.attrs["command"] + e.attrs["project"] + e.attrs["name"])})
			}
		}
		return hits
	}
}

// The node-addon-api include idiom: the one command expansion nearly every
// binding.gyp has.
var gypIdiom = lazyRE(`<!@?\(node -p \\?"require\(\\?['"][@\w./-]+\\?['"]\)\.(include|include_dir|gyp|targets)\\?"\)`)
var gypRisky = lazyRE(`<!|<\|\(|['"]\s*\+|\+\s*['"]|%\s*\(|\b(actions|rules|postbuilds|action|__import__|__builtins__|lambda|exec|eval|open)\b`)

// gypCommand fires on added binding.gyp lines with command expansions
// (<!(...), <!@(...)), actions, rules or postbuilds, or Python expression
// tricks (gyp evaluates the file as a Python expression).
func gypCommand() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.New == nil {
			return nil
		}
		ls := lines(f.New)
		var hits []Hit
		for _, n := range addedLines(f.Old, f.New) {
			l := gypIdiom().ReplaceAllString(ls[n-1], "")
			if m := gypRisky().FindString(l); m != "" {
				hits = append(hits, Hit{Line: n, Detail: clip(strings.TrimSpace(ls[n-1]))})
			}
		}
		return hits
	}
}

// pytestPluginOpt reports whether pytest options load a plugin module
// ("-p name", "-pname"); "-p no:name" disables one and is fine.
func pytestPluginOpt(v string) bool {
	v = strings.NewReplacer("[", " ", "]", " ", ",", " ", "\"", " ", "'", " ").Replace(v)
	fs := strings.Fields(v)
	for i, t := range fs {
		switch {
		case t == "-p" && i+1 < len(fs) && !strings.HasPrefix(fs[i+1], "no:"):
			return true
		case t == "-p":
			continue
		case strings.HasPrefix(t, "-p") && !strings.HasPrefix(t, "-pno:") && !strings.HasPrefix(t, "--"):
			return true
		case strings.HasPrefix(t, "--plugin") || strings.HasPrefix(t, "--pyargs") || strings.HasPrefix(t, "--rootdir") || strings.HasPrefix(t, "--confcutdir"):
			return true
		}
	}
	return false
}

// pytestPlugin fires on pytest addopts (in pytest.ini, tox.ini, setup.cfg
// or pyproject.toml) that load a plugin module on every run.
func pytestPlugin() Matcher {
	dk := docKeys(key{"pytest.addopts", pytestPluginOpt}, key{"tool:pytest.addopts", pytestPluginOpt},
		key{"tool.pytest.ini_options.addopts", pytestPluginOpt}, key{"tool.pytest.ini_options.addopts.*", func(v string) bool { return strings.HasPrefix(v, "-p") && !strings.HasPrefix(v, "-pno:") && v != "-p" }},
		key{"pytest.pytest_plugins", nil}, key{"tool:pytest.pytest_plugins", nil})
	return func(f *File, s *scanCtx) []Hit {
		hits := dk(f, s)
		// A list form ["-p", "mod"]: the "-p" and the module are separate nodes.
		if cur := s.doc(f, false); cur != nil {
			for i, n := range cur.nodes {
				if strings.HasPrefix(n.Path, "tool.pytest.ini_options.addopts.") && n.Value == "-p" && i+1 < len(cur.nodes) &&
					!strings.HasPrefix(cur.nodes[i+1].Value, "no:") {
					hits = append(hits, Hit{Line: n.Line, Detail: clip("addopts -p " + cur.nodes[i+1].Value)})
				}
			}
		}
		return hits
	}
}
