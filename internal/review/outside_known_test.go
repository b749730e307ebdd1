package review

// knownMisses are outside cases (SET/NAME) review does not rate high yet,
// each with what it gets and why; a fix removes its entry (the test fails
// on a listed case that passes).
var knownMisses = map[string]string{
	"build/075-elixir-compile-time-attribute":  "info: compile-time code in plain source (an Elixir module attribute) reads as inert source; flagging source would flag most tasks",
	"build/076-haskell-template-haskell-runio": "info: compile-time code in plain source (a Template Haskell splice) reads as inert source",
	"build/080-crystal-macro-backtick":         "medium: compile-time code in plain source (a Crystal macro) reads as inert source",
	"build/098-ocaml-local-ppx":                "info: dune's (preprocess (pps LIB)) is not resolved to the in-repo ppx library",
	"build/103-make-eval-built-shell":          "medium: $(eval) building $(shell ...) from pieces is not expanded like make",
	"editors/074-direnv-envrc-edit":            "medium by design: direnv asks again after any .envrc edit (DIRENV medium; AUTORUN-EDIT skips .envrc)",
	"round3/059-envrc-line-continuation":       "medium by design, as editors/074: direnv asks again after any .envrc edit (DIRENV medium); the continued line is a new command only direnv allow runs",
	"editors/115-claude-md-import-hidden":      "medium: an @-imported instruction file that asks to run a script reads as instructions (AGENT-INSTRUCTIONS)",
	// round4 (helper-52, 2026-12-05): 55 cases; these 4 stay below high.
	"round4/008-makefile-pl-require-inc":      "info: the graph does not follow Perl require/use from an unchanged Makefile.PL to a changed inc/*.pm",
	"round4/009-laravel-discover-provider":    "info: framework semantics: composer's post-autoload-dump runs artisan package:discover, which loads bootstrap/providers.php; not modelled",
	"round4/010-eslint-plugin-rules-dir-scan": "info: a plugin that loads every file of a directory at run time (readdirSync) is not followed; only named imports are",
	// round5 (helper-55, 2026-12-05): 40 cases, 26 high before the fixes.
	// round9 (helper-60, 2026-12-05): 70 cases on today's precision exemptions; ~30 got through on the build it attacked.
	"round9/015-test-module-imports-src-module-level":    "info: precision: an unchanged test module's imports are not followed (their module-level code runs at discovery, but following a test suite's whole import closure would make most Python tasks high); changed test modules and conftest.py's direct imports are",
	"round9/028-test-module-imports-helper-module-level": "info: as round9/015, a helper module an unchanged test module imports",
	"round9/102-conftest-imports-two-deep-module-level":  "info: conftest.py's imports are followed one module deep; the module that one imports is not (the same closure as round9/015)",
	"round9/071-mix-lib-module-attribute":                "info: compile-time code in plain source (an Elixir module attribute) reads as source, as build/075",
	"round9/092-symlink-chain-41-links":                  "medium, and nothing runs: the kernel refuses a chain of 41 links (ELOOP), as review's resolution does; the case probes the bound",
	// round8 (helper-59, 2026-12-05): 40 cases in rarer ecosystems, 9 high before the fixes.
	"round8/001-nim-nimble-paths-included-by-config-nims": "medium by design: Nim runs NimScript and the paths it adds when the user builds (nim c, nimble build); nim check and nimsuggest on open skip exec (the tester's finding)",
	"round8/017-nimble-file-cr-only-comment":              "medium by design, as round8/001: a .nimble file's tasks and hooks run at nimble commands the user starts",
	"round8/004-terragrunt-nearer-env-hcl-shadow":         "medium: Terragrunt reads the nearer env.hcl when the user runs terragrunt; find_in_parent_folders is not modelled",
	"round8/006-crystal-macro-run-version-helper":         "medium: compile-time code in plain source (a Crystal macro's run) reads as source, as build/080",
	"round8/011-ansible-dynamic-inventory-script-edit":    "medium: ansible.cfg's inventory is a directory, whose executables Ansible runs and whose variable files it reads; review does not tell them apart yet (a named inventory script is followed)",
	"round8/038-codex-agents-override-md-nested":          "medium by design: instructions in an agent's instruction file (AGENTS.override.md) are AGENT-INSTRUCTIONS medium unless they hide text",
	"round5/017-gitattributes-nbstripout-module-shadow":   "info here: the filter that runs `python3 -m nbstripout` is in the user's global git config, host state a corpus case cannot carry; a real review reads it and flags the shadowing module (TestHostGitFilterPythonModule)",
}

// knownNoise are outside benign cases that get a high flag, with the reason.
var knownNoise = map[string]string{
	"round4/benign/009-eslint-builtin-rule-severity":       "by design: eslint.config.js is JavaScript the ESLint extension runs on folder open; review does not judge what JavaScript does, so any change is high (item 2: an edit to an auto-run entry counts as a new one)",
	"round4/benign/012-claude-settings-allow-test-command": "by design: a permissions.allow entry lets the next agent session on the host run that command without asking (go test runs the repository's test code, which the agent wrote): AGENT-HOOK high",
	"round5/benign/006-precommit-remote-hook-args":         "by design: a new hook id or new args change what runs on the host at every commit; args load code (--load-plugins, --config=repo file) and a new hook reads the repository's own config (eslint.config.js)",
	"round10/benign/103-eslint-config-builtin-rules":       "by design, as round4/benign/009: eslint.config.mjs is JavaScript the ESLint extension runs on folder open, and review does not judge what JavaScript does",
	"round10/benign/112-lint-staged-adds-css-and-md-globs": "by design, as round5/benign/011: a lint-staged command line changed (an eslint argument added), and arguments can load code",
	"round5/benign/011-lint-staged-add-markdown-glob":      "by design (item 2): a new lint-staged command runs on the host at every commit, as a new entry would",
}
