// Package config reads sandbox.hcl: the schema, decoding with defaults,
// validation, the plan shown to the user, and canonical formatting.
//
// # Trust boundary
//
// A sandbox.hcl file comes from a repository, so it is untrusted input. It
// can only request things; the host user approves them (see BuildPlan and
// File.SHA256). Decoding therefore never touches the host beyond the bytes
// it is given: the expression language has a small set of pure functions
// (see Functions) — none reads a file, an environment variable or the
// clock, and nothing runs a command. Paths are taken literally: "~" and
// "$VAR" are not expanded; relative paths resolve against the directory of
// the file. Secret values and keys never appear in the file: credentials
// and signer keys are names in the host user's own stores.
//
// Decoding is bounded as well, so a hostile file cannot make `airlock plan`
// or the bridge spin or allocate without limit: files are at most
// MaxFileSize bytes; numbers stay within ±1e18 (cty prints every digit, so
// "${1e9999999}" alone took over two minutes before this limit); there is no arithmetic and no for expression; function
// results are at most 4 KiB. See limits.go.
//
// Every problem is reported, not only the first, as an hcl.Diagnostic with
// a Summary, a full-sentence Detail and a Subject range. A *File is returned
// even when there are errors (as far as it could be decoded); callers must
// check diags.HasErrors() before using it.
//
// # Diagnostics as JSON
//
// `airlock validate --json` prints JSONDiagnostics: a JSON array (never
// null; [] when the file is clean) of objects
//
//	{
//	  "severity": "error" | "warning",
//	  "summary":  "Invalid backend",
//	  "detail":   "backend must be one of \"auto\", ... .",
//	  "filename": "sandbox.hcl",            // "" when the problem has no place in a file
//	  "start": {"line": 3, "column": 13, "byte": 42},   // omitted when filename is ""
//	  "end":   {"line": 3, "column": 18, "byte": 47}    // exclusive end
//	}
//
// Lines and columns count from 1; columns count Unicode grapheme clusters
// as hcl does; byte is the 0-based offset into the file. The VS Code
// extension in editor-ext/ consumes this shape.
//
// # Host patterns
//
// network.allow, network.deny and credential.hosts take patterns:
// "example.com" (that host), "*.example.com" (exactly one more label),
// "**.example.com" (one or more labels), any of these with ":PORT", IP
// addresses ("10.1.2.3", "[::1]:8080") and CIDRs ("10.0.0.0/8"). They are
// parsed by internal/egress/hostpattern, the same parser the egress proxy
// enforces with; ParseHostPattern only adds what a sandbox file may not ask
// for (any-host patterns, wildcards over a top-level domain, non-ASCII
// names).
package config
