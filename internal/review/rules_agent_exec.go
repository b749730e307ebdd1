package review

// Every agent's MCP servers, hooks and plugins are commands the agent
// starts on the host when it next runs here, whichever agent it is
// (issue 28, item 5): Gemini, Continue, Amazon Q, Kiro, aider, Claude Code
// plugins, Zed context servers, opencode plugins. And agent instructions
// hide nothing: any invisible or non-rendered content in them is high.

// agentExecPaths are agent configuration locations beyond agentDirs.
var agentExecPaths = append(append([]string{}, agentDirs...), ".claude-plugin/**", ".zed/settings.json", ".vscode/mcp.json",
	".github/copilot/**", ".github/hooks/**", ".aider.conf.yml", ".aider.conf.yaml", ".aider*.yml", ".aider*.yaml", "goose.yaml", ".goosehints",
	".amazonq/**", ".continue/**", ".kiro/**", ".trae/**", ".cline/**", "mcp.json", "*.mcp.json", "mcp_config.json",
	// round8: Tabnine's agent settings, Roo Code's modes (customInstructions
	// and the tool groups a mode may use without asking).
	".tabnine/**", ".roomodes", ".roo/**")

// agentExecKeys are the keys that make an agent start a program.
var agentExecKeys = []key{{"*mcpservers*", nil}, {"*mcp_servers*", nil}, {"*mcp.*", nil}, {"*context_servers*", nil},
	{"*modelcontextprotocol*", nil}, {"*hooks*", nil}, {"*command*", nil}, {"*cmd*", nil}, {"*plugin*", nil},
	{"*marketplace*", nil}, {"*auto-lint*", nil}, {"*auto-test*", nil}, {"load", nil}, {"*servers.*", nil}, {"*helper*", nil},
	{"*.args*", nil}, {"*.env.*", nil}, {"*shell*", nil}, {"*exec*", nil}, {"*agentspawn*", nil}, {"*userpromptsubmit*", nil},
	{"custommodes*", nil}}

func agentExecRules() []*Rule {
	return []*Rule{
		{ID: "AGENT-EXEC-CONFIG", Severity: High, Reason: "This agent setting starts a program (an MCP server, a hook, a plugin, a lint or test command) on the host the next time the agent runs in this folder.",
			Paths: agentExecPaths, Not: []string{"*.md", "*.mdc", "*.txt"},
			Match: anyOf(docKeys(agentExecKeys...), unparsedExecLines())},
		{ID: "AGENT-PLUGIN-CODE", Severity: High, Reason: "Agents load this file as a plugin, hook or extension by its location, without the user choosing (opencode plugins, Kiro hooks, Claude Code plugin hooks, Gemini extensions).",
			Paths: []string{".opencode/plugin/**", ".opencode/plugins/**", ".opencode/tool/**", ".opencode/tools/**", ".kiro/hooks/**",
				".claude-plugin/**", ".claude/hooks/**", ".gemini/extensions/**", ".continue/mcpServers/**", ".amazonq/cli-agents/**", ".amazonq/agents/**",
				".windsurf/hooks.json", ".windsurf/workflows/**", ".cursor/hooks/**", ".clinerules/hooks/**"},
			Not: []string{"*.md"}, Match: changed()},
		{ID: "AGENT-HIDDEN-MARKUP", Severity: High, Reason: "Content that does not render (an HTML comment, a hidden element, a link-reference comment, a link title shown only on hover) in agent instructions is read by the agent and not seen by the human reviewer.",
			Paths: agentText, AgentText: true, Match: lineRe(`<!--|^\s*\[[^\]]*\]:\s*(#|<>)|<[^>]*\b(hidden\b|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0)|\x{FE0F}\x{FE0F}|` + mdLinkTitle)},
	}
}

// mdLinkTitle is a Markdown link or image title, [t](url "title") or a
// reference definition's [r]: url "title": rendered only as a tooltip.
const mdLinkTitle = `\]\(\s*<?[^()\s<>]*>?\s+("[^"]*\S[^"]*"|'[^']*\S[^']*'|\([^()]*\S[^()]*\))\s*\)|^\s*\[[^\]]+\]:\s*\S+\s+("[^"]*"|'[^']*'|\([^()]*\))\s*$`

// unparsedExecLines is for agent config files we do not parse as a
// document (a .kiro.hook, a TOML-ish or custom file): a line that sets a
// command-like key.
func unparsedExecLines() Matcher {
	m := lineRe(`(?i)["']?\b(mcp_?servers|context_servers|command|cmd|hooks?|lint-cmd|test-cmd|runCommand|args|plugins?)\b["']?\s*[:=]`)
	return func(f *File, s *scanCtx) []Hit {
		if s.doc(f, false) != nil {
			return nil
		}
		return m(f, s)
	}
}

// isHiddenRune: characters that render as nothing (or as a blank) and so
// can carry text a reviewer does not see: bidi controls, zero-width
// characters, Unicode tags, variation selectors (except the emoji
// presentation selector U+FE0F, whose runs the markup rule catches),
// Hangul and braille fillers, invisible operators, soft hyphen, combining
// grapheme joiner, interlinear annotations.
func isHiddenRune(r rune) bool {
	switch {
	case isBidi(r), isZeroWidth(r), isTag(r):
		return true
	case r >= 0xfe00 && r <= 0xfe0e, r >= 0xe0100 && r <= 0xe01ef:
		return true
	case r == 0x00ad, r == 0x034f, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5, r == 0x3164, r == 0xffa0, r == 0x2800:
		return true
	case r >= 0x2061 && r <= 0x2064, r >= 0x206a && r <= 0x206f, r >= 0xfff9 && r <= 0xfffb, r >= 0x1d173 && r <= 0x1d17a:
		return true
	case r < 0x20 && r != '\t' && r != '\n' && r != '\v' && r != '\f' && r != '\r', r == 0x7f, r >= 0x80 && r <= 0x9f:
		// Control characters: a terminal escape (ESC[8m conceals what
		// follows in `cat`), a backspace that overprints, C1 controls.
		return true
	}
	return false
}
