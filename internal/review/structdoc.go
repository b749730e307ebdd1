package review

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// A config format and the tool whose reading of it we copy.
type format struct {
	kind     string // "json", "jsonc", "yaml", "toml", "ini"
	consumer string // who reads it ("npm", "VS Code", ...): named in parse failures
}

// formats maps config files to how their consumer parses them. A file
// listed here is parsed as a document; if we cannot read it the way its
// consumer does, that alone is a high flag (PARSE-FAIL).
var formats = []struct {
	globs []string
	format
}{
	{[]string{"package.json", "package-lock.json", "npm-shrinkwrap.json"}, format{"json", "npm (JSON.parse)"}},
	{[]string{"composer.json"}, format{"json", "Composer"}},
	{[]string{"CMakePresets.json", "CMakeUserPresets.json"}, format{"json", "CMake (presets)"}},
	{[]string{".claude/settings.json", ".claude/settings.local.json", ".mcp.json", ".cursor/mcp.json", ".roo/mcp.json",
		".kiro/settings/mcp.json", ".continue/config.json", "opencode.json", ".opencode/*.json"}, format{"json", "the agent (JSON.parse)"}},
	{[]string{".vscode/*.json", "*.code-workspace", ".devcontainer.json", ".devcontainer/**/devcontainer.json",
		".zed/*.json", ".cursor/*.json", ".gemini/settings.json"}, format{"jsonc", "VS Code (jsonc-parser)"}},
	{[]string{"opencode.jsonc", ".opencode/*.jsonc"}, format{"jsonc", "OpenCode (JSON with comments)"}},
	{[]string{"*.sublime-project", "*.sublime-settings"}, format{"jsonc", "Sublime Text (JSON with comments and trailing commas)"}},
	{[]string{".yarnrc.yml", "pnpm-workspace.yaml", ".github/workflows/*.yml", ".github/workflows/*.yaml",
		".github/actions/**/action.yml", ".github/actions/**/action.yaml", "action.yml", "action.yaml", ".gitlab-ci.yml",
		".circleci/config.yml", ".pre-commit-config.yaml", "compose*.yml", "compose*.yaml", "docker-compose*.yml",
		"docker-compose*.yaml", "Taskfile.yml", "Taskfile.yaml", ".aider.conf.yml", ".sbxenv.yaml", "lefthook.yml",
		".lefthook.yml", "azure-pipelines.yml", "bitbucket-pipelines.yml", ".travis.yml", ".gitea/workflows/*.yml", ".gitea/workflows/*.yaml",
		".forgejo/workflows/*.yml", ".forgejo/workflows/*.yaml"}, format{"yaml", "a YAML reader"}},
	{[]string{".cargo/config.toml", ".cargo/config", "Cargo.toml", "pyproject.toml", "bunfig.toml", "mise.toml", ".mise.toml",
		"mise.local.toml", ".mise.local.toml", ".config/mise.toml", ".config/mise/config.toml", ".codex/config.toml",
		"rust-toolchain.toml", "uv.toml", ".helix/languages.toml", ".helix/config.toml", "rust-analyzer.toml", "**/rust-analyzer.toml"}, format{"toml", "a TOML reader"}},
	{[]string{"pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", ".coveragerc", "mypy.ini", ".mypy.ini", "ansible.cfg"}, format{"ini", "Python's configparser"}},
	{[]string{".roomodes"}, format{"yaml", "Roo Code (YAML or JSON)"}},
	{[]string{"nx.json"}, format{"json", "Nx (JSON)"}},
	{[]string{"hie.yaml"}, format{"yaml", "a YAML reader"}},
	{[]string{".bsp/*.json"}, format{"json", "a JSON reader"}},
	{[]string{".luarc.json", ".luarc.jsonc", "**/.luarc.json"}, format{"jsonc", "lua-language-server (JSON with comments)"}},
}

// formatOf returns the format of a path, if it is a config file we parse.
func formatOf(p string) (format, bool) {
	segs := strings.Split(strings.ToLower(p), "/")
	for _, f := range formats {
		for _, g := range f.globs {
			if segMatch(patternSegs(g), segs) {
				return f.format, true
			}
		}
	}
	return format{}, false
}

// doc is a parsed config document: its nodes, the last node per path
// (later duplicates win, as in JSON.parse and VS Code), and the first
// error if the document is not one its consumer reads cleanly.
type doc struct {
	nodes []Node
	byKey map[string]int
	err   error
}

func (d *doc) get(path string) (Node, bool) {
	if d == nil {
		return Node{}, false
	}
	i, ok := d.byKey[path]
	if !ok {
		return Node{}, false
	}
	return d.nodes[i], true
}

func parseDoc(f format, src []byte) *doc {
	if src == nil {
		return nil
	}
	var nodes []Node
	var err error
	switch f.kind {
	case "json":
		nodes, err = ParseJSON(src)
		if err != nil {
			// Read what a forgiving reader would, so the rules still see
			// the keys; the failure itself is flagged.
			nodes, _ = ParseJSONC(src)
		}
	case "jsonc":
		var errs []error
		nodes, errs = ParseJSONC(src)
		if len(errs) > 0 {
			err = errs[0]
		}
	case "yaml":
		nodes, err = ParseYAML(src)
	case "toml":
		nodes, err = ParseTOML(src)
	case "ini":
		nodes, err = ParseINI(src)
	}
	d := &doc{nodes: nodes, byKey: make(map[string]int, len(nodes)), err: err}
	for i, n := range nodes {
		d.byKey[n.Path] = i
	}
	return d
}

// yamlAmbiguous are spots where the differential test against js-yaml
// found the two parsers reading different keys: a document marker glued to
// a key ("---yarnPath: x" is yarnPath to js-yaml), an anchor or alias name
// with a colon, and a flow-context key whose ':' touches a flow indicator.
// We cannot read them the way every consumer does, so they fail closed.
var yamlAmbiguous = lazyRE(`(?m)^(---|\.\.\.)[^\s]|(^|[\s\[{,])[&*][^\s,\[\]{}]*:|[^\s:]:[,\]}]`)

// maxYAMLNodes bounds alias expansion (a "billion laughs" document).
const maxYAMLNodes = 200000

// ParseYAML reads every document of a YAML stream with a real YAML 1.2
// parser (flow style, quoted and escaped keys, explicit "? key" entries,
// anchors, aliases and "<<" merge keys all resolved) and flattens it to
// nodes. Keys keep their decoded text.
func ParseYAML(src []byte) ([]Node, error) {
	if m := yamlAmbiguous().Find(src); m != nil {
		return nil, fmt.Errorf("yaml: %q is read differently by YAML parsers (js-yaml, which Yarn and pnpm use, and others)", clip(string(m)))
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	w := &yamlWalker{}
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return w.nodes, nil
			}
			return w.nodes, fmt.Errorf("yaml: %w", err)
		}
		if err := w.walk(&n, "", 0); err != nil {
			return w.nodes, err
		}
	}
}

type yamlWalker struct {
	nodes []Node
	seen  int
}

func (w *yamlWalker) walk(n *yaml.Node, path string, depth int) error {
	if w.seen++; w.seen > maxYAMLNodes || depth > 1000 {
		return fmt.Errorf("yaml: document too large after alias expansion")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := w.walk(c, path, depth+1); err != nil {
				return err
			}
		}
	case yaml.AliasNode:
		if n.Alias != nil {
			return w.walk(n.Alias, path, depth+1)
		}
	case yaml.MappingNode:
		w.nodes = append(w.nodes, Node{Path: path, Kind: 'o', Line: n.Line})
		return w.mapping(n, path, depth)
	case yaml.SequenceNode:
		w.nodes = append(w.nodes, Node{Path: path, Kind: 'a', Line: n.Line})
		for i, c := range n.Content {
			if err := w.walk(c, join(path, strconv.Itoa(i)), depth+1); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		k := byte('s')
		switch n.ShortTag() {
		case "!!int", "!!float":
			k = 'n'
		case "!!bool":
			k = 'b'
		case "!!null":
			k = 'z'
		}
		w.nodes = append(w.nodes, Node{Path: path, Kind: k, Value: n.Value, Line: n.Line})
	}
	return nil
}

func (w *yamlWalker) mapping(n *yaml.Node, path string, depth int) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		for k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Tag != "!!str" {
			// Merge key: the merged mappings' pairs belong to this mapping.
			if err := w.merge(v, path, depth); err != nil {
				return err
			}
			continue
		}
		key := jsKey(k, 0)
		at := len(w.nodes)
		if err := w.walk(v, join(path, key), depth+1); err != nil {
			return err
		}
		if at < len(w.nodes) {
			w.nodes[at].Line = k.Line // a key's line, as for JSON
		}
	}
	return nil
}

// jsKey is the name a JavaScript YAML reader gives a mapping key: a
// scalar's text, a sequence's elements joined with "," (so js-yaml reads
// {[yarnPath]: x} as yarnPath), "[object Object]" for a mapping.
func jsKey(k *yaml.Node, depth int) string {
	for k.Kind == yaml.AliasNode && k.Alias != nil && depth < 50 {
		k, depth = k.Alias, depth+1
	}
	switch k.Kind {
	case yaml.SequenceNode:
		parts := make([]string, len(k.Content))
		for i, c := range k.Content {
			if depth < 50 {
				parts[i] = jsKey(c, depth+1)
			}
		}
		return strings.Join(parts, ",")
	case yaml.MappingNode:
		return "[object Object]"
	case yaml.ScalarNode:
		switch k.ShortTag() {
		case "!!null":
			return "null"
		case "!!int", "!!float":
			// JS names a numeric key by its number: 00 is "0", 0x1F is "31".
			v := strings.ReplaceAll(k.Value, "_", "")
			if i, err := strconv.ParseInt(strings.TrimLeft(v, "0"), 0, 64); err == nil && !strings.HasPrefix(v, "0x") && !strings.HasPrefix(v, "0o") {
				return strconv.FormatInt(i, 10)
			}
			if i, err := strconv.ParseInt(v, 0, 64); err == nil {
				return strconv.FormatInt(i, 10)
			}
			if v == "0" || strings.Trim(v, "0") == "" {
				return "0"
			}
		}
		return k.Value
	}
	return ""
}

func (w *yamlWalker) merge(v *yaml.Node, path string, depth int) error {
	for v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	switch v.Kind {
	case yaml.MappingNode:
		return w.mapping(v, path, depth+1)
	case yaml.SequenceNode:
		for _, c := range v.Content {
			if err := w.merge(c, path, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// ParseTOML reads TOML with a real TOML 1.0 parser (dotted keys, quoted and
// escaped keys, inline tables, arrays of tables) and flattens it to nodes.
// Lines are found by searching for the key's last part.
func ParseTOML(src []byte) ([]Node, error) {
	var m map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(src)).Decode(&m); err != nil {
		return nil, fmt.Errorf("toml: %w", err)
	}
	ls := lines(src)
	var nodes []Node
	var walk func(path string, v any)
	walk = func(path string, v any) {
		line := tomlLine(ls, path)
		switch x := v.(type) {
		case map[string]any:
			nodes = append(nodes, Node{Path: path, Kind: 'o', Line: line})
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(join(path, k), x[k])
			}
		case []map[string]any:
			nodes = append(nodes, Node{Path: path, Kind: 'a', Line: line})
			for i, e := range x {
				walk(join(path, strconv.Itoa(i)), e)
			}
		case []any:
			nodes = append(nodes, Node{Path: path, Kind: 'a', Line: line})
			for i, e := range x {
				walk(join(path, strconv.Itoa(i)), e)
			}
		case string:
			nodes = append(nodes, Node{Path: path, Kind: 's', Value: x, Line: line})
		case bool:
			nodes = append(nodes, Node{Path: path, Kind: 'b', Value: strconv.FormatBool(x), Line: line})
		case int64, float64:
			nodes = append(nodes, Node{Path: path, Kind: 'n', Value: fmt.Sprint(x), Line: line})
		default:
			nodes = append(nodes, Node{Path: path, Kind: 's', Value: fmt.Sprint(x), Line: line})
		}
	}
	walk("", m)
	return nodes, nil
}

// tomlLine guesses the line of a key: the first line mentioning its last
// non-index part (1 when none does).
func tomlLine(ls []string, path string) int {
	parts := strings.Split(path, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		if _, err := strconv.Atoi(parts[i]); err == nil || parts[i] == "" {
			continue
		}
		for n, l := range ls {
			if strings.Contains(l, parts[i]) {
				return n + 1
			}
		}
		break
	}
	return 1
}

// ParseINI reads an INI file the way Python's configparser does for
// pytest.ini, tox.ini and setup.cfg: [section] headers, "key = value" or
// "key: value", keys lower-cased, indented lines continuing the previous
// value, '#' and ';' comment lines. Nodes are "section.key".
func ParseINI(src []byte) ([]Node, error) {
	var nodes []Node
	section := ""
	last := -1 // index of the node an indented line continues
	for i, l := range lines(stripBOM(src)) {
		t := strings.TrimSpace(l)
		indented := len(l) > 0 && (l[0] == ' ' || l[0] == '\t')
		switch {
		case t == "" || t[0] == '#' || t[0] == ';':
			continue
		case indented && last >= 0:
			nodes[last].Value += "\n" + t
			continue
		case t[0] == '[' && strings.HasSuffix(t, "]"):
			section = t[1 : len(t)-1]
			nodes = append(nodes, Node{Path: section, Kind: 'o', Line: i + 1})
			last = -1
			continue
		}
		if section == "" {
			return nodes, fmt.Errorf("ini: line %d: key outside a section", i+1)
		}
		k, v, ok := cutFirst(t, "=:")
		if !ok {
			return nodes, fmt.Errorf("ini: line %d: no '=' or ':'", i+1)
		}
		nodes = append(nodes, Node{Path: section + "." + strings.ToLower(strings.TrimSpace(k)), Kind: 's', Value: strings.TrimSpace(v), Line: i + 1})
		last = len(nodes) - 1
	}
	return nodes, nil
}

// cutFirst cuts s around the first of any of the separator bytes.
func cutFirst(s, seps string) (string, string, bool) {
	i := strings.IndexAny(s, seps)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}
