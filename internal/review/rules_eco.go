package review

// Parse failures, Python bytecode, and ecosystems with code-running
// config: Ruby (bundler), PHP (Composer), Java (Maven), .NET (MSBuild),
// node-gyp, pytest; and files an existing lifecycle script runs.
func ecoRules() []*Rule {
	var cfgGlobs []string
	for _, f := range formats {
		cfgGlobs = append(cfgGlobs, f.globs...)
	}
	msbuild := []string{"Directory.Build.props", "Directory.Build.targets", "Directory.Packages.props", "Directory.Solution.props",
		"Directory.Solution.targets", "*.csproj", "*.fsproj", "*.vbproj", "*.proj", "*.props", "*.targets", "*.sln.targets"}
	return []*Rule{
		{ID: "PARSE-FAIL", Severity: High, Reason: "We could not parse this config file the way the tool that reads it does, so it may act on keys this review did not see.",
			Paths: cfgGlobs, Match: parseFail()},
		{ID: "PY-BYTECODE", Severity: High, Reason: "Python runs a .pyc (in __pycache__, or sourceless beside the package) on import without reading its .py, so its code is not what the review shows.",
			Paths: []string{"*.pyc", "*.pyo"}, Match: changed()},
		{ID: "RUBY-CODE", Severity: High, Reason: "Bundler evaluates the Gemfile (and gemspecs) as Ruby on every bundle command; this line is code, not a dependency declaration.",
			Paths: []string{"Gemfile", "gems.rb", "*.gemspec", "Gemfile.local", "*.gemfile"}, Match: rubyCode()},
		{ID: "COMPOSER-SCRIPT", Severity: High, Reason: "Composer runs event scripts (post-install-cmd, post-autoload-dump...) and allowed plugins on the host at composer install/update.",
			Paths: []string{"composer.json"}, Match: docKeys(key{"scripts.pre-*", nil}, key{"scripts.post-*", nil}, key{"config.allow-plugins*", isTrue})},
		{ID: "COMPOSER", Severity: Medium, Reason: "Composer scripts, repositories or plugins changed; they decide what code composer fetches and runs.",
			Paths: []string{"composer.json"}, Match: docKeys(key{"scripts*", nil}, key{"repositories*", nil}, key{"extra.*", nil}, key{"config.*", nil})},
		{ID: "MAVEN-PLUGIN", Severity: High, Reason: "A Maven plugin that runs commands, is loaded as a build extension, or is bound to an early phase runs on the host at the next mvn build.",
			Paths: []string{"pom.xml", "*.pom"}, Match: mavenPlugin()},
		{ID: "MSBUILD-EXEC", Severity: High, Reason: "MSBuild imports Directory.Build.* from every parent folder; Exec, Target, UsingTask and Import run or pull in code at the next dotnet build.",
			Paths: msbuild, Match: msbuildExec()},
		{ID: "MSBUILD-RSP", Severity: High, Reason: "Directory.Build.rsp adds command-line switches (loggers, extra projects) to every msbuild run below it.",
			Paths: []string{"Directory.Build.rsp", "msbuild.rsp"}, Match: changed()},
		{ID: "GYP-COMMAND", Severity: High, Reason: "node-gyp runs <!(...) command expansions and actions in binding.gyp at npm install.",
			Paths: []string{"binding.gyp", "*.gyp", "*.gypi"}, Match: gypCommand()},
		{ID: "PYTEST-PLUGIN", Severity: High, Reason: "addopts -p (or pytest_plugins) imports a plugin module on every pytest run.",
			Paths: []string{"pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"}, Match: pytestPlugin()},
		{ID: "EDITOR-JS-CONFIG", Severity: High, Reason: "Editor extensions (ESLint, Prettier, Stylelint) load this JavaScript config when a file in the folder is opened: it runs on the host with the user's authority.",
			Paths: []string{"eslint.config.*", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.mjs", "prettier.config.*", ".prettierrc.js", ".prettierrc.cjs",
				".prettierrc.mjs", ".prettierrc.ts", "stylelint.config.*", ".stylelintrc.js", ".stylelintrc.cjs", ".stylelintrc.mjs"}, Match: changed()},
		{ID: "PRETTIER-PLUGIN", Severity: High, Reason: "Prettier (and its editor extension, on format-on-save) imports the plugins a .prettierrc names; an escaped key could hide one, so escapes count too.",
			Paths: []string{".prettierrc", ".prettierrc.json", ".prettierrc.json5", ".prettierrc.yaml", ".prettierrc.yml", ".prettierrc.toml"},
			Match: lineRe(`(?i)plugin|\\`)},
		{ID: "PYLINT-HOOK", Severity: High, Reason: "pylint runs init-hook as Python and imports load-plugins on every run, including the editor's background lint.",
			Paths: []string{".pylintrc", "pylintrc", "pyproject.toml", "setup.cfg", "tox.ini"},
			Match: lineRe(`(?i)^\s*["']?(init[-_]hook|load[-_]plugins)["']?\s*[=:]`)},
		{ID: "NPM-LIFECYCLE-TARGET", Severity: High, Reason: "An npm lifecycle script (postinstall, prepare...) runs this file at the next npm install, even though package.json did not change.",
			Match: lifecycleTarget()},
	}
}
