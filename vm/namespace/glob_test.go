//go:build linux

package namespace

import (
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// TestGlobAgreesWithConfig: the backend hides exactly what the plan the
// user approved says is hidden.
func TestGlobAgreesWithConfig(t *testing.T) {
	pats := []string{".env", ".env.*", "*.pem", "id_*", "config/*.pem", "**/secrets/*", "a/**/b", "secrets/", "x/y"}
	paths := []string{".env", "a/.env", ".env.local", "src/.env.prod", "k.pem", "config/k.pem", "config/sub/k.pem",
		"secrets/x", "a/secrets/x", "a/b", "a/c/d/b", "a/c/b/e", "x/y", "x/y/z", "id_rsa", "src/id_ed25519", "main.go", "envy"}
	for _, p := range pats {
		for _, rel := range paths {
			// config.MatchGlob also matches below a matching directory;
			// the walker gets that by stopping at the directory.
			want := config.MatchGlob(p, rel)
			got := false
			parts := strings.Split(rel, "/")
			for n := 1; n <= len(parts) && !got; n++ {
				got = hiddenPath(strings.Join(parts[:n], "/"), []string{p})
			}
			if got != want {
				t.Errorf("pattern %q path %q: backend %v, config %v", p, rel, got, want)
			}
		}
	}
}
