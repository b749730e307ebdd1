package review

// knownMisses are outside cases (SET/NAME) review does not rate high yet,
// each with what it gets and why; a fix removes its entry (the test fails
// on a listed case that passes).
var knownMisses = map[string]string{
	"build/030-pytest-discovery-module-level":  "info: precision: test modules are not high though test discovery imports them (agents edit tests in most tasks); conftest.py and pytest plugins are",
	"build/075-elixir-compile-time-attribute":  "info: compile-time code in plain source (an Elixir module attribute) reads as inert source; flagging source would flag most tasks",
	"build/076-haskell-template-haskell-runio": "info: compile-time code in plain source (a Template Haskell splice) reads as inert source",
	"build/080-crystal-macro-backtick":         "medium: compile-time code in plain source (a Crystal macro) reads as inert source",
	"build/098-ocaml-local-ppx":                "info: dune's (preprocess (pps LIB)) is not resolved to the in-repo ppx library",
	"build/103-make-eval-built-shell":          "medium: $(eval) building $(shell ...) from pieces is not expanded like make",
	"editors/062-gitconfig-include-textconv":   "medium here: the host's include.path is host state a corpus case cannot carry (a real review reads it, hostgitcfg.go)",
	"editors/074-direnv-envrc-edit":            "medium by design: direnv asks again after any .envrc edit (DIRENV medium; AUTORUN-EDIT skips .envrc)",
	"round3/059-envrc-line-continuation":       "medium by design, as editors/074: direnv asks again after any .envrc edit (DIRENV medium); the continued line is a new command only direnv allow runs",
	"editors/115-claude-md-import-hidden":      "medium: an @-imported instruction file that asks to run a script reads as instructions (AGENT-INSTRUCTIONS)",
}

// knownNoise are outside benign cases that get a high flag, with the reason.
var knownNoise = map[string]string{}
