package review

import "strings"

// The rule set, from ../shared/RISKS.md sections A–G. Every rule has a
// malicious and a benign fixture in rules_test.go.

var (
	instructionFiles = []string{"AGENTS.md", "AGENT.md", "AGENTS.override.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md", "QWEN.md",
		"CRUSH.md", "WARP.md", "CONVENTIONS.md", "codex.md", ".cursorrules", ".github/chatmodes/**", ".kiro/steering/**",
		".junie/guidelines.md", ".amazonq/rules/**", ".augment/rules/**", ".trae/rules/**", ".kilocode/rules/**", ".rules",
		".windsurfrules", ".clinerules", ".github/copilot-instructions.md", ".github/instructions/**", ".github/prompts/**",
		"SKILL.md", ".claude/commands/**", ".claude/agents/**", ".claude/skills/**", ".cursor/rules/**", ".windsurf/rules/**", ".goosehints"}
	agentDirs = []string{".claude/**", ".codex/**", ".gemini/**", ".cursor/**", ".windsurf/**", ".continue/**", ".roo/**",
		".aider.conf.yml", ".mcp.json", ".clinerules/**", ".opencode/**", "opencode.json", ".kiro/**", ".qwen/**", ".amazonq/**",
		".augment/**", ".kilocode/**", ".junie/**", ".crush.json", ".goose/**", "opencode.jsonc"}
	agentText     = append(append([]string{}, instructionFiles...), agentDirs...)
	claudeConfigs = []string{".claude/settings.json", ".claude/settings.local.json"}
	mcpConfigs    = []string{".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", ".roo/mcp.json", ".gemini/settings.json", ".claude/settings.json", ".claude/settings.local.json", ".kiro/settings/mcp.json"}
	ciFiles       = []string{".github/workflows/*.yml", ".github/workflows/*.yaml", ".github/actions/**/action.yml",
		".github/actions/**/action.yaml", "action.yml", "action.yaml", ".gitlab-ci.yml", ".circleci/config.yml", "Jenkinsfile",
		"azure-pipelines.yml", ".buildkite/**", "bitbucket-pipelines.yml", ".travis.yml", ".github/dependabot.yml",
		"renovate.json", ".drone.yml", ".woodpecker.yml", ".woodpecker/**", ".gitea/workflows/**", ".forgejo/workflows/**", ".gitlab/**"}
	workflowFiles = []string{".github/workflows/*.yml", ".github/workflows/*.yaml", ".github/actions/**/action.yml", ".github/actions/**/action.yaml", "action.yml", "action.yaml",
		".gitea/workflows/*.yml", ".gitea/workflows/*.yaml", ".forgejo/workflows/*.yml", ".forgejo/workflows/*.yaml"}
	vscodeSetting = []string{".vscode/settings.json", "*.code-workspace", ".zed/settings.json", ".cursor/settings.json"}
	vscodeTasks   = []string{".vscode/tasks.json", "*.code-workspace", ".zed/tasks.json"}
	devcontainers = []string{".devcontainer.json", ".devcontainer/**/devcontainer.json", ".devcontainer/devcontainer.json"}
	npmLocks      = []string{"package-lock.json", "npm-shrinkwrap.json"}
	otherLocks    = []string{"yarn.lock", "pnpm-lock.yaml", "Cargo.lock", "bun.lock"}
	exemptScripts = []string{"scripts/**", "script/**", "bin/**", "tools/**", "hack/**", ".git/hooks/**", ".git/modules/**"}
)

// cmdKeys are git config keys whose value git runs (or that name a program
// git runs). The explicit list comes from git-config(1); the suffix
// patterns after it catch the rest of the family (every *.cmd, *.command,
// *.program, *.helper, *.driver, *.textconv, *editor, *filter, *hook key).
var cmdKeys = []key{
	{"core.hookspath", nil}, {"core.fsmonitor", func(v string) bool { return !isFalse(v) }}, {"core.sshcommand", nil},
	{"core.gitproxy", nil}, {"core.pager", nil}, {"pager.*", func(v string) bool { return !isBoolish(v) }},
	{"core.editor", nil}, {"sequence.editor", nil}, {"core.askpass", nil}, {"credential.helper", notEmpty},
	{"credential.*.helper", notEmpty}, {"diff.external", nil}, {"diff.*.command", nil}, {"diff.*.textconv", nil},
	{"filter.*.clean", nil}, {"filter.*.smudge", nil}, {"filter.*.process", nil}, {"merge.*.driver", nil},
	{"gpg.program", nil}, {"gpg.*.program", nil}, {"gpg.ssh.defaultkeycommand", nil}, {"interactive.difffilter", nil},
	{"tar.*.command", nil}, {"guitool.*.cmd", nil}, {"alias.*", aliasRuns}, {"remote.*.uploadpack", nil},
	{"remote.*.receivepack", nil}, {"uploadpack.packobjectshook", nil}, {"submodule.*.update", prefix("!")},
	{"init.templatedir", nil}, {"core.alternaterefscommand", nil}, {"difftool.*.cmd", nil}, {"mergetool.*.cmd", nil},
	{"difftool.*.path", nil}, {"mergetool.*.path", nil}, {"browser.*.cmd", nil}, {"browser.*.path", nil},
	{"man.*.cmd", nil}, {"man.*.path", nil}, {"web.browser", nil}, {"sendemail.smtpserver", prefix("/")},
	{"sendemail.*.smtpserver", prefix("/")}, {"sendemail.*cmd", nil}, {"ssh.variant", nil}, {"gc.*hook*", nil},
	{"protocol.ext.allow", func(v string) bool { return !equalFold("never")(v) }}, {"protocol.allow", equalFold("always")},
	{"remote.*.url", isExtURL}, {"remote.*.pushurl", isExtURL}, {"url.*.insteadof", isExtURL}, {"url.*.pushinsteadof", isExtURL},
	{"remote.*.vcs", nil},
	{"*cmd", nil}, {"*command", nil}, {"*.program", nil}, {"*.helper", notEmpty}, {"*.driver", nil}, {"*.textconv", nil},
	{"*editor", nil}, {"*filter", nil}, {"*hook", nil}, {"*askpass", nil}, {"*.process", nil}, {"*.smudge", nil}, {"*.clean", nil},
}

// aliasRuns: a "!" alias is a shell command; a plain alias can still set
// command-bearing config for its run (-c, --config-env) or switch the git
// programs used (--exec-path).
func aliasRuns(v string) bool {
	v = strings.TrimSpace(v)
	return strings.HasPrefix(v, "!") || strings.Contains(v, "-c ") || strings.Contains(v, "-c=") || strings.HasPrefix(v, "-c") ||
		strings.Contains(v, "--config-env") || strings.Contains(v, "--exec-path") || strings.Contains(v, "-C ")
}

// isExtURL: the ext:: transport runs its URL as a command.
func isExtURL(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return strings.HasPrefix(v, "ext::") || strings.HasPrefix(v, "fd::")
}

var redirectKeys = []key{
	{"remote.*.url", nil}, {"remote.*.pushurl", nil}, {"url.*.insteadof", nil}, {"url.*.pushinsteadof", nil},
	{"http.proxy", nil}, {"http.*.proxy", nil}, {"https.proxy", nil}, {"http.sslcainfo", nil}, {"http.*.sslcainfo", nil},
	{"http.extraheader", nil}, {"http.*.extraheader", nil}, {"http.sslcapath", nil}, {"core.worktree", nil},
}

var trustKeys = []key{
	{"http.sslverify", isFalse}, {"http.*.sslverify", isFalse}, {"safe.directory", nil}, {"safe.barerepository", nil},
	{"core.symlinks", nil}, {"fsck.*", nil}, {"transfer.fsckobjects", isFalse}, {"fetch.fsckobjects", isFalse},
	{"receive.fsckobjects", isFalse}, {"protocol.*.allow", nil}, {"protocol.allow", nil}, {"core.protectntfs", isFalse},
	{"core.protecthfs", isFalse}, {"transfer.credentialsinurl", nil},
}

func isBoolish(v string) bool {
	return equalFold("true", "false", "yes", "no", "on", "off", "1", "0", "")(v)
}

var npmLifecycle = []string{"preinstall", "install", "postinstall", "prepare", "preprepare", "postprepare", "prepack",
	"postpack", "prepublish", "prepublishonly", "publish", "postpublish", "preuninstall", "uninstall", "postuninstall",
	"dependencies", "prestart", "poststart", "prerestart", "postrestart"}

func npmScriptKeys(lifecycle bool) Matcher {
	set := map[string]bool{}
	for _, s := range npmLifecycle {
		set[s] = true
	}
	return func(f *File, s *scanCtx) []Hit {
		hits := docKeys(key{"scripts.*", nil})(f, s)
		reach := lifecycleReachable(s.doc(f, false), set)
		var out []Hit
		for _, h := range hits {
			name := strings.ToLower(strings.TrimPrefix(strings.SplitN(h.Detail, " = ", 2)[0], "scripts."))
			if name == "scripts" {
				continue
			}
			isLC := set[name] || reach[name]
			isPrePost := !isLC && (strings.HasPrefix(name, "pre") || strings.HasPrefix(name, "post"))
			if lifecycle && isLC || !lifecycle && isPrePost {
				out = append(out, h)
			}
		}
		return out
	}
}

// lifecycleReachable names the scripts a lifecycle script runs through
// `npm run x`, `yarn x`, `pnpm x` (transitively): a change to one of them
// runs at the next install as surely as the lifecycle script itself.
func lifecycleReachable(d *doc, lifecycle map[string]bool) map[string]bool {
	if d == nil {
		return nil
	}
	scripts := map[string]string{}
	for _, n := range d.nodes {
		if strings.HasPrefix(n.Path, "scripts.") && n.Kind == 's' {
			scripts[strings.ToLower(strings.TrimPrefix(n.Path, "scripts."))] = n.Value
		}
	}
	reach := map[string]bool{}
	var visit func(name string, depth int)
	visit = func(name string, depth int) {
		cmd, ok := scripts[name]
		if !ok || depth > 8 {
			return
		}
		_, more := scriptTargets(".", cmd)
		for _, m := range more {
			m = strings.ToLower(m)
			if !reach[m] {
				reach[m] = true
				visit(m, depth+1)
			}
		}
	}
	for name := range scripts {
		if lifecycle[name] {
			visit(name, 0)
		}
	}
	return reach
}

func gitRules() []*Rule {
	return []*Rule{
		// A. .git internals and git configuration.
		{ID: "GIT-HOOK", Severity: High, Reason: "A git hook runs automatically on the host on the next commit, checkout, merge or push.",
			Paths: []string{".git/hooks/**", ".git/modules/**/hooks/**", ".git/worktrees/**/hooks/**"}, Hooks: true, Match: hookFile()},
		{ID: "GIT-CONFIG", Severity: Medium, Reason: "The repository's git config changed; git reads it on every command.",
			Paths: gitConfigPaths, GitConfig: true, Match: configChanged()},
		{ID: "GIT-CONFIG-CMD", Severity: High, Reason: "This git config key names a program that git runs on the host (hooks path, fsmonitor, ssh command, pager, filter, alias...).",
			Paths: append([]string{".gitmodules", ".lfsconfig", ".gitconfig", "*.gitconfig", "**/.gitconfig"}, gitConfigPaths...), GitConfig: true, Match: gitKeys(cmdKeys...)},
		{ID: "GIT-INCLUDE", Severity: High, Reason: "An include.path/includeIf makes git read more config from another file, which can carry any command-bearing key.",
			Paths: append([]string{".gitmodules"}, gitConfigPaths...), GitConfig: true, Match: gitKeys(key{"include.path", nil}, key{"includeif.*.path", nil})},
		{ID: "GIT-CONFIG-REDIRECT", Severity: Medium, Reason: "This git config key redirects where git fetches or pushes, or which proxy, CA or headers it uses.",
			Paths: append([]string{".gitmodules", ".lfsconfig"}, gitConfigPaths...), GitConfig: true, Match: gitKeys(redirectKeys...)},
		{ID: "GIT-CONFIG-TRUST", Severity: Medium, Reason: "This git config key weakens git's safety checks (TLS, fsck, protocol, safe.directory, symlinks).",
			Paths: append([]string{".gitmodules", ".lfsconfig"}, gitConfigPaths...), GitConfig: true, Match: gitKeys(trustKeys...)},
		{ID: "GIT-CONFIG-CR", Severity: High, Reason: "A carriage return inside a git config value can change a submodule path as git writes it back (CVE-2025-48384).",
			Paths: append([]string{".gitmodules"}, gitConfigPaths...), GitConfig: true, Match: gitKeys(key{"*", func(v string) bool { return strings.ContainsRune(v, '\r') }})},
		{ID: "GIT-CONFIG-INVALID", Severity: High, Reason: "This git config has syntax our parser could not read the way git does; git may act on a key we did not see.",
			Paths: append([]string{".gitmodules"}, gitConfigPaths...), GitConfig: true, Match: configInvalid()},
		{ID: "GIT-ALTERNATES", Severity: High, Reason: "objects/info/alternates makes git borrow objects from another directory, outside review.",
			Paths: []string{".git/objects/info/alternates", ".git/objects/info/http-alternates", ".git/modules/**/objects/info/alternates"}, Match: changed()},
		{ID: "GIT-COMMONDIR", Severity: High, Reason: "commondir/gitdir files point git at another repository's config and hooks.",
			Paths: []string{".git/commondir", ".git/worktrees/*/commondir", ".git/worktrees/*/gitdir", ".git/modules/**/commondir"}, Match: changed()},
		{ID: "GIT-INFO-ATTRIBUTES", Severity: Medium, Reason: ".git/info/attributes applies attributes (and so filter/diff drivers) without a visible .gitattributes change.",
			Paths: []string{".git/info/attributes", ".git/modules/**/info/attributes"}, Match: changed()},
		{ID: "GIT-INFO-EXCLUDE", Severity: Medium, Reason: ".git/info/exclude can hide files from git status and from review.",
			Paths: []string{".git/info/exclude", ".git/modules/**/info/exclude"}, Match: changed()},
		{ID: "GIT-INTERNAL", Severity: Info, Reason: "A file inside .git/ changed.",
			Paths: []string{".git/**"}, Not: append([]string{".git/hooks/**", ".git/info/**", ".git/objects/info/**", ".git/commondir", ".git/worktrees/*/commondir", ".git/worktrees/*/gitdir", ".git/modules/**/hooks/**"}, gitConfigPaths...), Match: changed()},
		{ID: "GIT-ATTR-DRIVER", Severity: Medium, Reason: "A .gitattributes filter/diff/merge attribute turns on a driver command defined in git config.",
			Paths: []string{".gitattributes", ".git/info/attributes"}, Match: attrDriver()},
		{ID: "GIT-ATTR-ENCODING", Severity: High, Reason: "working-tree-encoding makes git convert the file's bytes on checkout: what review read in the repository is not what lands in the work tree (a package.json stored as EBCDIC is unreadable here and a valid one with a postinstall on disk).",
			Paths: []string{"**/.gitattributes", ".gitattributes", ".git/info/attributes"}, Match: lineRe(`(?i)\bworking-tree-encoding\s*=|(?:^|\s)ident(?:\s|$)`)},
		{ID: "CHECKOUT-ENCODING", Severity: Info, Reason: "The repository's .gitattributes make checkout write this file converted (working-tree-encoding, ident): review judged it as checkout writes it, not as stored.",
			Match: checkoutEncoding(false)},
		{ID: "CHECKOUT-IDENT", Severity: High, Reason: "The repository's .gitattributes give this file the ident attribute and it holds a $Id:...$ span git did not write: checkout rewrites such spans to the blob's id, removing what stood inside (a comment opener, a quote), so what lands on disk is not what the repository shows.",
			Match: checkoutIdent()},
		{ID: "CHECKOUT-ENCODING-UNKNOWN", Severity: High, Reason: "The repository's .gitattributes give this file a working-tree-encoding review cannot convert to: what checkout writes was not judged.",
			Match: checkoutEncoding(true)},
		{ID: "GITMODULES", Severity: Medium, Reason: "A submodule was added or its URL, path or update mode changed; recursive clones and updates fetch and check it out.",
			Paths: []string{".gitmodules"}, Match: gitKeys(key{"submodule.*", nil})},
		{ID: "GITMODULES-PATH", Severity: High, Reason: "A submodule name, path or URL with '..', a leading '-' or a CR is the shape of known git submodule exploits.",
			Paths: []string{".gitmodules"}, Match: submodulePath()},
		{ID: "LFSCONFIG", Severity: Medium, Reason: ".lfsconfig changes where Git LFS fetches content from and how.",
			Paths: []string{".lfsconfig"}, Match: changed()},
		{ID: "GIT-EMBEDDED", Severity: High, Reason: "A path named like .git (case, 8.3 or HFS/NTFS variants) can become a repository's metadata on some filesystems.",
			Match: gitLikePath()},
		{ID: "GIT-BARE-REPO", Severity: High, Reason: "An embedded bare repository's config runs (e.g. core.fsmonitor) when anyone runs git inside that directory.",
			Match: bareRepo()},
		{ID: "GIT-SUBMODULE-COMMIT", Severity: Medium, Reason: "A submodule commit (gitlink) was added; its content is not part of this review.",
			Match: gitlink()},
		{ID: "GUARDED-PATH", Severity: High, Reason: "Direct mode: this path is hidden from the agent or read-only to it (the workspace's hide/protect globs), yet it changed during the session: you changed it, or something got past the workspace gate. Check it before running anything.",
			Match: guarded()},
		{ID: "PUT-BACK", Severity: High, Reason: "Direct mode: this file was written (with the bytes the last review saw, or others) just as you asked for this review or while it ran, or this directory's entries changed then: an agent that can tell when review reads the folder takes a change away for that moment and puts it back after. Stop the agent (or let it go idle), then review again before you open or run anything from the folder; a put-back at every review is an agent hiding a change.",
			Match: putBack(true)},
		{ID: "PUT-BACK-SOURCE", Severity: Medium, Reason: "Direct mode: this plain source file was written just as you asked for this review or while it ran, or this directory's entries changed then beside a file written into it: what review read may be what the agent put there for the moment. Stop the agent (or let it go idle) and review again.",
			Match: putBack(false)},
		{ID: "GIT-REJECTED", Severity: High, Reason: "Git itself refuses this path or object (a .git variant, a .gitmodules fsck rejects, a nested repository without a commit); it was not captured like the rest, so look at it in the sandbox.",
			Match: rejected()},
		{ID: "GIT-NESTED-REPO", Severity: High, Reason: "A repository nested in the workspace (a .git directory or gitfile below the root, or a gitlink no .gitmodules entry names) runs its own config and hooks when git recurses into it.",
			Match: nestedRepo()},
	}
}
