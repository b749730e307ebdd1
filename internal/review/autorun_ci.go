package review

import (
	"strings"
)

// Precision for CI (issue 28, item 6): a GitHub-style workflow job seeds
// the auto-run graph because it runs the repository's code with the
// repository's secrets and token when the branch is pushed. A job that
// can have neither — its token limited to read (or nothing) by an
// explicit permissions block, and no secrets named anywhere it can see
// (its own keys, the workflow's env, on.workflow_call) — runs off the
// host with nothing to take, so the files it names are not high on that
// ground (real projects: express's test job names test/support/env.js
// through npm test). Without a permissions block the token's default
// may be write, so the job counts; so does a job that may run on a
// runner GitHub does not host (self-hosted: the user's own machine).
// Gitea and Forgejo workflows always count: their runners are the user's
// and their token's scope does not follow the permissions block.

// ciSecretRef is any mention of the secrets context (secrets.X,
// secrets['X'], toJSON(secrets), secrets: inherit is its own key).
var ciSecretRef = lazyRE(`(?i)\bsecrets\b`)

// ciJobQuiet says job runs with a read-only (or no) token and no secrets.
func ciJobQuiet(nodes []Node, job string) bool {
	own := "jobs." + job + "."
	perms, set := ciPerms(nodes, own+"permissions")
	if !set {
		perms, set = ciPerms(nodes, "permissions")
	}
	if !set || !perms || !ciHosted(nodes, own) {
		return false
	}
	for _, n := range nodes {
		inJob := strings.HasPrefix(n.Path, own)
		if strings.HasPrefix(n.Path, "jobs.") && !inJob {
			continue // another job's keys
		}
		if inJob && strings.TrimPrefix(n.Path, own) == "secrets" {
			return false // a reusable workflow call passing secrets
		}
		if ciSecretRef().MatchString(n.Value) || ciSecretRef().MatchString(n.Path) {
			return false
		}
	}
	return true
}

// ciHostedLabel is a runner GitHub hosts (a fresh VM per job); any other
// label may be a self-hosted runner on the user's own machine.
var ciHostedLabel = lazyRE(`^(ubuntu|windows|macos)-[\w.-]+$`)

// ciMatrixRef is a matrix key an expression names.
var ciMatrixRef = lazyRE(`\bmatrix\.([\w-]+)`)

// ciHosted says every runner the job may get is GitHub-hosted: literal
// labels, the quoted labels in an expression and every value of the
// matrix keys it names.
func ciHosted(nodes []Node, own string) bool {
	var labels []string
	for _, n := range nodes {
		if n.Path != own+"runs-on" && !strings.HasPrefix(n.Path, own+"runs-on.") {
			continue
		}
		if n.Kind != 's' && n.Kind != 'a' {
			return false // group:/labels: — a runner group of the user's
		}
		if !strings.Contains(n.Value, "${{") {
			labels = append(labels, n.Value)
			continue
		}
		for _, m := range quoted().FindAllStringSubmatch(n.Value, -1) {
			labels = append(labels, m[1])
		}
		for _, m := range ciMatrixRef().FindAllStringSubmatch(n.Value, -1) {
			for _, v := range strs(nodes, own+"strategy.matrix."+m[1], own+"strategy.matrix."+m[1]+".*", own+"strategy.matrix.include.*."+m[1]) {
				labels = append(labels, v.Value)
			}
		}
	}
	for _, l := range labels {
		if !ciHostedLabel().MatchString(strings.TrimSpace(l)) {
			return false
		}
	}
	return true
}

// ciPerms reads the permissions block at key: set says there is one,
// readOnly that it grants no write (read-all, {}, every scope read/none).
func ciPerms(nodes []Node, key string) (readOnly, set bool) {
	readOnly = true
	for _, n := range nodes {
		if n.Path != key && !strings.HasPrefix(n.Path, key+".") {
			continue
		}
		set = true
		switch n.Kind {
		case 'o':
		case 's':
			switch strings.ToLower(strings.TrimSpace(n.Value)) {
			case "read", "none", "read-all", "":
			default:
				readOnly = false // write, write-all, an expression
			}
		default:
			readOnly = false
		}
	}
	return readOnly, set
}
