package signer

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/testenv"
)

const testCommit = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" +
	"author Agent <agent@sandbox> 1764417600 +0000\n" +
	"committer Agent <agent@sandbox> 1764417600 +0000\n\nempty commit\n"

const testTag = "object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\n" +
	"tagger Agent <agent@sandbox> 1764417600 +0000\n\nrelease\n"

// TestGitSSHSIGVerifiesWithOpenSSH signs commit and tag objects with an
// ed25519 and a p256 key and checks them with the real `ssh-keygen -Y verify`.
func TestGitSSHSIGVerifiesWithOpenSSH(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		testenv.Missing(t, "ssh-keygen not installed")
	}
	h := newHarness(t, map[string][2]string{"ed": {"ed25519", keyRFC8032}, "p": {"p256", strings.Repeat("22", 32)}},
		&config.Signer{
			Keys:     []*config.SignerKey{{Name: "ed", Ref: "ed"}, {Name: "p", Ref: "p"}},
			Policies: []*config.Policy{{Name: "git", Key: "ed", Operations: []string{"git"}, Approval: "never"}, {Name: "git2", Key: "p", Operations: []string{"git"}, Approval: "never"}},
		})
	dir := t.TempDir()
	for _, kn := range []string{"ed", "p"} {
		pi, _ := h.store.Info(kn)
		allowed := filepath.Join(dir, kn+".allowed")
		os.WriteFile(allowed, []byte("agent@sandbox "+pi.SSH+"\n"), 0o600)
		for _, obj := range []string{testCommit, testTag} {
			res, err := h.call(t, "airlock_gitSign", map[string]any{"namespace": "git", "public_key": pi.SSH,
				"data": base64.StdEncoding.EncodeToString([]byte(obj))})
			if err != nil {
				t.Fatalf("%s: %v", kn, err)
			}
			sigFile := filepath.Join(dir, "sig")
			os.WriteFile(sigFile, []byte(res.(map[string]string)["signature"]), 0o600)
			cmd := exec.Command("ssh-keygen", "-Y", "verify", "-f", allowed, "-I", "agent@sandbox", "-n", "git", "-s", sigFile)
			cmd.Stdin = strings.NewReader(obj)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: ssh-keygen -Y verify: %v\n%s", kn, err, out)
			}
			// A changed object must not verify.
			cmd = exec.Command("ssh-keygen", "-Y", "verify", "-f", allowed, "-I", "agent@sandbox", "-n", "git", "-s", sigFile)
			cmd.Stdin = strings.NewReader(obj + "x")
			if err := cmd.Run(); err == nil {
				t.Fatalf("%s: tampered object verified", kn)
			}
		}
	}
	// Anything but a commit or tag is refused before policy.
	pi, _ := h.store.Info("ed")
	for _, bad := range []string{"hello", "tree 123\n\nx", testCommit + "\x00", "blob 3\x00abc",
		"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ngpgsig -----BEGIN\ncommitter a\n\nm"} {
		_, err := h.call(t, "airlock_gitSign", map[string]any{"namespace": "git", "public_key": pi.SSH,
			"data": base64.StdEncoding.EncodeToString([]byte(bad))})
		if err == nil {
			t.Errorf("signed a non-commit: %q", bad)
		}
	}
	_, err := h.call(t, "airlock_gitSign", map[string]any{"namespace": "file", "public_key": pi.SSH,
		"data": base64.StdEncoding.EncodeToString([]byte(testCommit))})
	if err == nil {
		t.Error("signed in a namespace other than git")
	}
}
