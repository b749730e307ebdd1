package review

// C. CI/CD and governance; D. IDE configuration.
func ciIDERules() []*Rule {
	return []*Rule{
		{ID: "CI-FILE", Severity: Medium, Reason: "A CI/CD or bot configuration changed; it runs with the repository's secrets and tokens.",
			Paths: ciFiles, Match: changed()},
		{ID: "CI-TRIGGER", Severity: High, Reason: "pull_request_target/workflow_run workflows run untrusted code with write tokens and secrets.",
			Paths: workflowFiles, Match: anyOf(lineRe(`\b(pull_request_target|workflow_run)\b`), ciTrigger())},
		{ID: "CI-INJECTION", Severity: High, Reason: "${{ github.event.* }} or head_ref expanded into a script lets whoever controls that text run commands in CI.",
			Paths: workflowFiles, Match: anyOf(lineRe(ciExprRe), docValues(ciExprRe))},
		{ID: "CI-PERMISSIONS", Severity: High, Reason: "permissions: write-all gives the workflow token every write scope.",
			Paths: workflowFiles, Match: anyOf(lineRe(`permissions:\s*["']?write-all`), docKeys(key{"permissions", equalFold("write-all")}, key{"*.permissions", equalFold("write-all")}))},
		{ID: "CI-UNPINNED", Severity: Medium, Reason: "An action referenced by tag or branch can change under you; pin a full commit SHA.",
			Paths: workflowFiles, Match: unpinnedAction()},
		{ID: "CODEOWNERS", Severity: Medium, Reason: "CODEOWNERS decides who must review changes; editing it can weaken review.",
			Paths: []string{"CODEOWNERS", ".github/CODEOWNERS", "docs/CODEOWNERS", ".gitlab/CODEOWNERS"}, Match: changed()},
		{ID: "VSCODE-AUTORUN", Severity: High, Reason: "A VS Code task with runOn: folderOpen runs on the host as soon as the folder opens.",
			Paths: vscodeTasks, Match: docKeys(key{"*runOptions.runOn", equalFold("folderOpen")}, key{"*runOn", equalFold("folderOpen")})},
		{ID: "VSCODE-TASKS", Severity: Medium, Reason: "VS Code/Zed tasks define commands the editor runs on the host.",
			Paths: []string{".vscode/tasks.json", ".zed/tasks.json"}, Match: changed()},
		{ID: "VSCODE-LAUNCH", Severity: Medium, Reason: "launch.json programs and preLaunchTasks run on the host when debugging starts.",
			Paths: []string{".vscode/launch.json", ".zed/debug.json"}, Match: changed()},
		{ID: "VSCODE-SETTING", Severity: High, Reason: "This editor setting auto-approves agent tools, changes terminal env/profiles, workspace trust, or the path of a program the editor runs.",
			Paths: vscodeSetting, Match: docKeys(key{"*chat.tools.*", nil}, key{"*chat.*autoApprove*", nil}, key{"*github.copilot.chat.*", nil},
				key{"*terminal.integrated.env.*", nil}, key{"*terminal.integrated.profiles.*", nil}, key{"*terminal.integrated.defaultProfile.*", nil},
				key{"*terminal.integrated.automationProfile.*", nil}, key{"*terminal.integrated.shell*", nil}, key{"*.path", nil},
				key{"*.executablePath", nil}, key{"*.serverPath", nil}, key{"*.server.path", nil}, key{"*InterpreterPath", nil},
				key{"*.alternateTools*", nil}, key{"*eslint.runtime", nil}, key{"*eslint.nodePath", nil}, key{"*typescript.tsdk", nil},
				key{"*task.allowAutomaticTasks", nil}, key{"*security.workspace.trust.*", nil}, key{"*http.proxy*", nil},
				key{"*.toolsEnvVars*", nil}, key{"*go.goroot", nil}, key{"*.commandPath", nil}, key{"*.binPath", nil},
				key{"*.runtimeExecutable", nil}, key{"*agent.tools*", nil}, key{"*.autoApprove*", nil}, key{"*mcp*", nil},
				key{"*lsp.*.binary*", nil}, key{"*extensions.allowed*", nil})},
		{ID: "VSCODE-WORKSPACE", Severity: Medium, Reason: "Workspace files and extension recommendations push settings, tasks and extensions into the editor.",
			Paths: []string{"*.code-workspace", ".vscode/extensions.json"}, Match: changed()},
		{ID: "IDE-CONFIG", Severity: Medium, Reason: "IDE run configurations and tool settings define commands the IDE runs on the host.",
			Paths: []string{".idea/workspace.xml", ".idea/runConfigurations/**", ".idea/externalDependencies.xml", ".idea/tools/**",
				".idea/*.iml", ".run/**", ".zed/settings.json", ".fleet/**", ".vscode/settings.json"}, Match: changed()},
	}
}

// E. Agent configuration and instruction files.
func agentRules() []*Rule {
	return []*Rule{
		{ID: "AGENT-HOOK", Severity: High, Reason: "Agent settings hooks, helpers, permissions or MCP switches run commands or skip approval the next time an agent starts here.",
			Paths: append(append([]string{}, claudeConfigs...), ".gemini/settings.json", ".cursor/settings.json"),
			Match: docKeys(key{"hooks*", nil}, key{"apiKeyHelper", nil}, key{"awsAuthRefresh", nil}, key{"awsCredentialExport", nil},
				key{"gcpAuthRefresh", nil}, key{"otelHeadersHelper", nil}, key{"statusLine*", nil}, key{"permissions.allow*", nil},
				key{"permissions.defaultMode", nil}, key{"permissions.additionalDirectories*", nil}, key{"enableAllProjectMcpServers", nil},
				key{"enabledMcpjsonServers*", nil}, key{"disableBypassPermissionsMode", nil}, key{"fileSuggestion*", nil}, key{"tools.*", nil},
				key{"autoAccept*", nil}, key{"yolo*", nil})},
		{ID: "AGENT-MCP", Severity: High, Reason: "An MCP server entry is a command an agent or editor starts on the host.",
			Paths: mcpConfigs, Match: docKeys(key{"mcpServers*", nil}, key{"servers*", nil}, key{"mcp.servers*", nil})},
		{ID: "AGENT-MCP-TOML", Severity: High, Reason: "An MCP server entry is a command an agent or editor starts on the host.",
			Paths: []string{".codex/config.toml"}, Match: docKeys(key{"mcp_servers*", nil}, key{"profiles.*.mcp_servers*", nil})},
		{ID: "CODEX-POLICY", Severity: High, Reason: "Codex sandbox, approval and environment policies decide what the agent may run without asking.",
			Paths: []string{".codex/config.toml"}, Match: docKeys(key{"*sandbox_mode", nil}, key{"*approval_policy", nil},
				key{"*shell_environment_policy*", nil}, key{"*sandbox_workspace_write*", nil}, key{"*notify*", nil}, key{"*trust_level", nil})},
		{ID: "AGENT-CONFIG", Severity: Medium, Reason: "Agent configuration changed; the next agent session in this folder reads it.",
			Paths: agentDirs, Match: changed()},
		{ID: "AGENT-INSTRUCTIONS", Severity: Medium, Reason: "Agent instruction files steer every future agent session in this repository.",
			Paths: instructionFiles, AgentText: true, Match: changed()},
		{ID: "AGENT-HIDDEN-TEXT", Severity: High, Reason: "Invisible characters (bidi, zero-width, Unicode tags) in agent instructions hide text from the human reviewer.",
			Paths: agentText, AgentText: true, Match: hiddenChars(func(r rune) bool { return isBidi(r) || isZeroWidth(r) || isTag(r) })},
		{ID: "AGENT-INJECTION", Severity: High, Reason: "Instruction-override phrasing is the signature of a prompt injection aimed at the next agent.",
			Paths: agentText, AgentText: true, Match: lineRe(`(?i)(ignore|disregard|forget|override)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+)?(previous|prior|above|earlier|system)\s+(instructions|prompts?|rules|directions|messages)|(?i)do\s+not\s+(tell|inform|mention\s+this\s+to)\s+the\s+(user|human)`)},
		{ID: "AGENT-PIPE-SHELL", Severity: High, Reason: "Instructions that pipe a download into a shell make the next agent run remote code.",
			Paths: agentText, AgentText: true, Match: lineRe(`(?i)\b(curl|wget|iwr|irm|fetch)\b[^|\n]*\|\s*(sudo\s+)?(ba|z|da|k|fi)?sh\b|(?i)\b(ba)?sh\s+(-c\s+)?["']?\$?\(?<?\(\s*(curl|wget)|(?i)\|\s*(python3?|node|perl|iex)\b`)},
		{ID: "AGENT-EXFIL", Severity: Medium, Reason: "Instructions referencing secrets (.env, .ssh, cloud credentials), paste/tunnel hosts or long base64 blobs.",
			Paths: agentText, AgentText: true, Match: lineRe(`(?i)~/\.ssh|\.ssh/id_|\.aws/credentials|\.netrc|cat\s+\S*\.env\b|webhook\.site|ngrok|requestbin|pipedream\.net|interactsh|burpcollaborator|oast\.(fun|pro|live|site|online|me)|pastebin\.com|[A-Za-z0-9+/]{160,}={0,2}`)},
		{ID: "TEXT-BIDI", Severity: Medium, Reason: "Bidi control characters can make code read differently from how it runs (Trojan Source).",
			Not: agentText, Match: hiddenChars(func(r rune) bool { return isBidi(r) || isTag(r) })},
	}
}

// F. Dependency and lockfile tampering.
func lockRules() []*Rule {
	return []*Rule{
		{ID: "LOCK-NPM-HOST", Severity: High, Reason: "A lockfile entry now resolves to another host or a non-https URL, so installs fetch code from there.",
			Paths: npmLocks, Match: npmLockCheck("host")},
		{ID: "LOCK-NPM-INTEGRITY", Severity: High, Reason: "A package's integrity hash changed while its version did not: the tarball was swapped.",
			Paths: npmLocks, Match: npmLockCheck("integrity")},
		{ID: "LOCK-NPM-INSTALL-SCRIPT", Severity: Medium, Reason: "A dependency with an install script was added; it runs at npm install.",
			Paths: npmLocks, Match: npmLockCheck("script")},
		{ID: "LOCK-GIT-DEP", Severity: Medium, Reason: "A dependency now comes from a git repository or local path, bypassing registry checks.",
			Paths: npmLocks, Match: npmLockCheck("git")},
		{ID: "LOCK-GIT-DEP-TEXT", Severity: Medium, Reason: "A dependency now comes from a git repository or local path, bypassing registry checks.",
			Paths: otherLocks, Match: lockSource(true)},
		{ID: "LOCK-SOURCE", Severity: High, Reason: "A lockfile entry now resolves to a non-default registry host or a non-https URL.",
			Paths: otherLocks, Match: lockSource(false)},
		{ID: "LOCK-GOSUM", Severity: High, Reason: "A go.sum hash changed for the same module version: the module content was swapped.",
			Paths: []string{"go.sum", "go.work.sum"}, Match: goSumChanged()},
		{ID: "LOCK-OTHER", Severity: Info, Reason: "A lockfile changed; check the dependency changes it records.",
			Paths: []string{"poetry.lock", "uv.lock", "Pipfile.lock", "Gemfile.lock", "composer.lock", "bun.lockb", "bun.lock", "pdm.lock", "mix.lock", "packages.lock.json"}, Match: changed()},
		{ID: "PIP-INDEX", Severity: High, Reason: "A requirements index option makes pip fetch packages from another server (dependency confusion).",
			Paths: []string{"requirements*.txt", "constraints*.txt", "requirements/*.txt", "pip.conf", "uv.toml"},
			Match: lineRe(`(?i)^\s*(-i\s|--index-url|--extra-index-url|--trusted-host|-f\s|--find-links|index-url\s*=|extra-index-url\s*=)`)},
		{ID: "PIP-VCS", Severity: Medium, Reason: "A requirement now comes from a VCS or direct URL instead of the index.",
			Paths: []string{"requirements*.txt", "constraints*.txt", "requirements/*.txt"}, Match: lineRe(`(?i)(git|hg|svn|bzr)\+|@\s*https?://|^\s*https?://`)},
	}
}

// G. Filesystem shape.
func fsRules() []*Rule {
	return []*Rule{
		{ID: "FS-EXEC", Severity: High, Reason: "A new executable file outside the scripts directories can be run by a build, an editor or a shell.",
			Not: exemptScripts, Match: newExec()},
		{ID: "FS-EXEC-SCRIPT", Severity: Medium, Reason: "A script was made executable.",
			Paths: []string{"scripts/**", "script/**", "bin/**", "tools/**", "hack/**"}, Match: newExec()},
		{ID: "FS-NATIVE-BINARY", Severity: High, Reason: "A native executable (ELF, Mach-O, PE) was added or changed; its behaviour cannot be reviewed.",
			Match: nativeBinary()},
		{ID: "FS-SHEBANG", Severity: Info, Reason: "A new script with a #! line.",
			Not: exemptScripts, Match: shebang()},
		{ID: "FS-SYMLINK-ESCAPE", Severity: High, Reason: "A symlink points outside the repository (absolute, ~ or ..): tools following it read or write host files.",
			Match: symlinkIs("escape")},
		{ID: "FS-SYMLINK-GIT", Severity: High, Reason: "A symlink points into .git: writes through it can plant hooks or config.",
			Match: symlinkIs("git")},
		{ID: "FS-SYMLINK", Severity: Medium, Reason: "A symlink was added or changed.",
			Match: symlinkIs("inside")},
		{ID: "FS-HARDLINK", Severity: High, Reason: "The file has other hard links: writes through it change a file elsewhere, invisibly to git.",
			Match: hardlink()},
		{ID: "FS-SETUID", Severity: High, Reason: "The file has the setuid/setgid bit.",
			Match: setuid()},
		{ID: "FS-LARGE", Severity: Medium, Reason: "A very large file (or one past the scan budget) was added or changed; it was not scanned.",
			Match: large(10 << 20)},
		{ID: "IGNORE-ADD", Severity: Info, Reason: "New ignore patterns hide files from git status and from review.",
			Paths: []string{".gitignore", ".ignore", ".rgignore"}, Match: lineRe(`^[^#\s].*`)},
	}
}
