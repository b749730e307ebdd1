package bridge_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

// attackScript plants one disguised change per class of issue 14 inside a
// real sandbox, including objects git itself refuses and nested
// repositories: review must still work and flag each one high.
const attackScript = `set -e
cd /workspace
mkdir -p crates/a/.cargo .vscode app/__pycache__ .Git/hooks vendor/x vendor/lib
# 1: a number Go's JSON cannot hold before a postinstall; a missing comma in tasks.json
sed -i 's/"build": "tsc"/"build": "tsc", "n": 1e999, "postinstall": "node x.js"/' package.json
printf '{"version": "2.0.0", "tasks": [{"label": "a", "command": "b"}\n{"label": "w", "command": "node w.js", "runOptions": {"runOn": "folderOpen"}}]}\n' > .vscode/tasks.json
# 2+4: a nested Cargo config with a TOML dotted key; flow-style .yarnrc.yml
printf 'target.x86_64-unknown-linux-gnu.runner = "sh tools/r.sh"\n' > crates/a/.cargo/config.toml
printf '{nodeLinker: node-modules, yarnPath: .yarn/r.cjs}\n' > .yarnrc.yml
# 3: bytecode
printf '\247\r\r\n\0\0\0\0' > app/__pycache__/m.cpython-311.pyc
# 5: a Maven plugin that runs a command at validate
printf '<project><build><plugins><plugin><artifactId>exec-maven-plugin</artifactId><executions><execution><phase>validate</phase></execution></executions></plugin></plugins></build></project>\n' > pom.xml
# 6: a git key whose value git runs
git config gpg.ssh.defaultKeyCommand 'sh -c id'
# 7: paths and .gitmodules git refuses
printf '#!/bin/sh\nid\n' > .Git/hooks/post-checkout
printf '[submodule "x"]\n\tpath = -x\n\turl = https://example.com/x.git\n' > .gitmodules
# 8: nested repositories, one without a commit
echo y > vendor/x/f && git -C vendor/x init -q
echo z > vendor/lib/f && git -C vendor/lib init -q && git -C vendor/lib add f && git -C vendor/lib -c user.name=a -c user.email=a@e commit -q -m x
git -C vendor/lib config core.fsmonitor 'touch /tmp/pwn; false'
`

var attackHigh = map[string]string{
	"package.json":                      "NPM-LIFECYCLE",
	".vscode/tasks.json":                "VSCODE-AUTORUN",
	"crates/a/.cargo/config.toml":       "CARGO-EXEC",
	".yarnrc.yml":                       "YARN-EXEC",
	"app/__pycache__/m.cpython-311.pyc": "PY-BYTECODE",
	"pom.xml":                           "MAVEN-PLUGIN",
	".git/config":                       "GIT-CONFIG-CMD",
	".Git/hooks/post-checkout":          "GIT-REJECTED",
	".gitmodules":                       "GITMODULES-PATH",
	"vendor/x":                          "GIT-REJECTED",
	"vendor/lib/.git/config":            "GIT-CONFIG-CMD",
	"vendor/lib":                        "GIT-NESTED-REPO",
}

func TestReviewAttackClassesInSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	repo := reviewRepo(t)
	hcl := fmt.Sprintf(reviewHCL, "atk", "clone")
	os.WriteFile(filepath.Join(repo, "sandbox.hcl"), []byte(hcl), 0o644)
	hostGit(t, repo, "add", "sandbox.hcl")
	hostGit(t, repo, "commit", "-q", "-m", "hcl")
	name := h.Up(t, hcl, repo)
	if out, errOut, code := h.Exec(t, name, "sh", "-c", attackScript); code != 0 {
		t.Fatalf("plant: %d %s %s", code, out, errOut)
	}
	out, errOut, code := h.Airlock(t, "review", name, "--json")
	if code != 3 {
		t.Fatalf("review: exit %d, want 3: %s\n%s", code, errOut, h.BridgeLog())
	}
	var res protocol.ReviewResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	checkFlags(t, &res, attackHigh)
}
