package review

import (
	"path"
	"strings"
)

// Rules about files that matter because another file points at them: a
// script an npm lifecycle script runs, a file an agent instruction file
// includes with @path.

// scriptExt are extensions of files a package script runs directly.
var scriptExt = map[string]bool{".js": true, ".cjs": true, ".mjs": true, ".ts": true, ".cts": true, ".mts": true, ".sh": true,
	".bash": true, ".py": true, ".rb": true, ".pl": true, ".ps1": true, ".bat": true, ".cmd": true, ".php": true}

var shellSplit = lazyRE(`[\s;&|()<>'"=` + "`" + `]+`)

// scriptTargets returns the repo paths a command line refers to, relative
// to dir (tokens with a '/' or a script extension), plus the names of
// package scripts it runs ("npm run x", "yarn x", "pnpm x").
func scriptTargets(dir, cmd string) (files, scripts []string) {
	toks := shellSplit().Split(cmd, -1)
	runs, skip := false, false // after run (or yarn, pnpm, bun), its options come before the script
	for _, t := range toks {
		if t == "" {
			continue
		}
		switch {
		case skip:
			skip = false
		case runs && strings.HasPrefix(t, "-"):
			skip = runValueOpt[t] // an option that takes the next word (npm run -w pkg x)
		case runs:
			scripts = append(scripts, t)
			runs = false
		}
		if t == "run" || t == "run-script" || t == "yarn" || t == "pnpm" || t == "bun" {
			runs = true
		}
		if strings.Contains(t, "://") || strings.HasPrefix(t, "-") && !strings.Contains(t, "/") {
			continue
		}
		if strings.Contains(t, "/") || scriptExt[strings.ToLower(path.Ext(t))] {
			p := path.Clean(path.Join(dir, t))
			if p != ".." && !strings.HasPrefix(p, "../") && !strings.HasPrefix(t, "/") {
				files = append(files, p)
			}
		}
	}
	return files, scripts
}

// runValueOpt are npm/yarn/pnpm options that take the next word.
var runValueOpt = map[string]bool{"-w": true, "--workspace": true, "--prefix": true, "-C": true, "--dir": true, "--filter": true, "-F": true, "--cwd": true}

var jsImport = lazyRE(`(?:require|import)\s*\(?\s*['"](\.{1,2}/[^'"]+)['"]|from\s+['"](\.{1,2}/[^'"]+)['"]`)

// lifecycleTargets returns the files the lifecycle scripts of the
// package.json in dir run: the scripts' own file arguments (following
// "npm run x" into other scripts) and the relative modules those files
// require or import.
func lifecycleTargets(s *scanCtx, dir string) map[string]string {
	if m, ok := s.lifecycle[dir]; ok {
		return m
	}
	m := lifecycleTargetsUncached(s, dir)
	s.lifecycle[dir] = m
	return m
}

func lifecycleTargetsUncached(s *scanCtx, dir string) map[string]string {
	b, ok := s.read(path.Join(dir, "package.json"))
	if !ok {
		return nil
	}
	nodes, err := ParseJSON(b)
	if err != nil {
		nodes, _ = ParseJSONC(b)
	}
	scripts := map[string]string{}
	for _, n := range nodes {
		if strings.HasPrefix(n.Path, "scripts.") && n.Kind == 's' {
			scripts[strings.TrimPrefix(n.Path, "scripts.")] = n.Value
		}
	}
	out := map[string]string{}
	seen := map[string]bool{}
	var visit func(name, via string, depth int)
	visit = func(name, via string, depth int) {
		cmd, ok := scripts[name]
		if !ok || seen[name] || depth > 4 {
			return
		}
		seen[name] = true
		files, more := scriptTargets(dir, cmd)
		for _, f := range files {
			for _, c := range []string{f, f + ".js", f + "/index.js"} {
				if _, ok := out[c]; !ok {
					out[c] = via
				}
			}
			if src, ok := s.read(f); ok && len(src) < maxScanBytes {
				for _, m := range jsImport().FindAllStringSubmatch(string(src), 50) {
					rel := m[1] + m[2]
					q := path.Clean(path.Join(path.Dir(f), rel))
					for _, c := range []string{q, q + ".js", q + ".cjs", q + ".mjs", q + "/index.js"} {
						if _, ok := out[c]; !ok {
							out[c] = via + " via " + f
						}
					}
				}
			}
		}
		for _, m := range more {
			visit(m, via, depth+1)
		}
	}
	for _, lc := range npmLifecycle {
		visit(lc, "scripts."+lc, 0)
	}
	return out
}

// lifecycleTarget fires on a changed file that an npm lifecycle script of
// a package.json in one of its parent directories runs, even when that
// package.json itself did not change.
func lifecycleTarget() Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if f.NewMode == 0 || path.Base(f.Path) == "package.json" {
			return nil
		}
		for dir := path.Dir(f.Path); ; dir = path.Dir(dir) {
			if via, ok := lifecycleTargets(s, dir)[f.Path]; ok {
				return []Hit{{Detail: clip("run by " + path.Join(dir, "package.json") + " " + via)}}
			}
			if dir == "." || dir == "/" {
				return nil
			}
		}
	}
}

// instructionNames are the file names agents read as instructions in any
// directory (see instructionFiles for the full globs).
var instructionNames = []string{"AGENTS.md", "AGENT.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md", "codex.md", "QWEN.md", "CRUSH.md", "WARP.md", "AGENTS.override.md"}

var atInclude = lazyRE(`(?:^|[\s(\[])@((?:\.{0,2}/|~/)?[\w.\-/]+)`)

// markAgentIncludes marks the changed files that an instruction file (in
// the same or a parent directory, changed or not) pulls in with @path.
// Claude Code and others read those as instructions too, up to a few
// levels of nesting.
func markAgentIncludes(s *scanCtx) {
	queue := []string{}
	for p, f := range s.files {
		if f.NewMode != 0 && isInstructionFile(p) {
			queue = append(queue, p)
		}
	}
	// Unchanged instruction files next to, or above, changed files.
	if s.tree != nil {
		dirs := map[string]bool{}
		for p := range s.files {
			for d := path.Dir(p); !dirs[d]; d = path.Dir(d) {
				dirs[d] = true
				if d == "." {
					break
				}
			}
		}
		for d := range dirs {
			for _, n := range instructionNames {
				if p := path.Join(d, n); s.files[p] == nil {
					if _, ok := s.read(p); ok {
						queue = append(queue, p)
					}
				}
			}
		}
	}
	seen := map[string]int{}
	for len(queue) > 0 && len(seen) < 500 {
		p := queue[0]
		queue = queue[1:]
		if _, ok := seen[p]; ok {
			continue
		}
		seen[p] = 0
		b, ok := s.read(p)
		if !ok || len(b) > maxScanBytes {
			continue
		}
		for _, m := range atInclude().FindAllStringSubmatch(string(b), 200) {
			t := strings.TrimRight(m[1], ".,;:")
			if strings.HasPrefix(t, "~") {
				continue
			}
			q := path.Clean(path.Join(path.Dir(p), t))
			if q == ".." || strings.HasPrefix(q, "../") {
				continue
			}
			if _, changed := s.files[q]; changed {
				s.agentIncluded[q] = true
			}
			if _, ok := s.read(q); ok {
				queue = append(queue, q)
			}
		}
	}
}

func isInstructionFile(p string) bool {
	segs := strings.Split(strings.ToLower(p), "/") // once, not per glob
	for _, g := range instructionFiles {
		if segMatch(patternSegs(g), segs) {
			return true
		}
	}
	return false
}
