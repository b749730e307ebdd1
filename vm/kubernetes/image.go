package kubernetes

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/vm/kubernetes/ociimage"
)

// BuildOCI turns a microVM root image (ext4, as `airlock image build`
// makes it) into a container image archive at dst tagged ref, with the
// static airlock-agent at AgentImagePath: the same root file system the
// microVM boots, read out with debugfs (no mount, no loop device). The
// archive is what `ctr images import` and `docker load` read; push it
// with any registry tool (crane, skopeo, docker push).
func BuildOCI(ctx context.Context, ext4Image, agentBinary, ref, dst string) error {
	if _, err := exec.LookPath("debugfs"); err != nil {
		return fmt.Errorf("debugfs not found (apt-get install e2fsprogs)")
	}
	work, err := os.MkdirTemp(filepath.Dir(dst), ".oci-build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	root := filepath.Join(work, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		return err
	}
	// rdump keeps owners and modes (run as root for the owners).
	ents, err := exec.CommandContext(ctx, "debugfs", "-R", "ls -p /", ext4Image).Output()
	if err != nil {
		return fmt.Errorf("debugfs ls %s: %w", ext4Image, err)
	}
	for _, name := range topLevel(string(ents)) {
		if name == "lost+found" || name == "dev" || name == "proc" || name == "sys" {
			if err := os.Mkdir(filepath.Join(root, name), 0o755); err != nil {
				return err
			}
			continue
		}
		out, err := exec.CommandContext(ctx, "debugfs", "-R", fmt.Sprintf("rdump \"/%s\" %s", name, root), ext4Image).CombinedOutput()
		if err != nil {
			return fmt.Errorf("debugfs rdump /%s: %v: %s", name, err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "bin/sh")); err != nil {
		if _, err := os.Lstat(filepath.Join(root, "bin")); err != nil {
			return fmt.Errorf("%s: no /bin in the image", ext4Image)
		}
	}
	// A copy of the agent in the root: the archive is read twice (digest,
	// then write) and the host binary may be replaced meanwhile.
	agentDst := filepath.Join(root, AgentImagePath)
	if err := os.MkdirAll(filepath.Dir(agentDst), 0o755); err != nil {
		return err
	}
	if err := fsx.CopyFile(agentBinary, agentDst, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(agentDst, 0o755); err != nil {
		return err
	}
	return ociimage.WriteArchive(dst, ref, root, ociimage.Config{
		User:       "1000:1000",
		Env:        []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		WorkingDir: "/workspace",
		Entrypoint: []string{AgentImagePath},
	})
}

// topLevel parses `debugfs -R "ls -p /"` lines: /INODE/MODE/UID/GID/NAME/SIZE/.
func topLevel(out string) []string {
	var names []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "/")
		if len(f) < 6 {
			continue
		}
		if n := f[5]; n != "" && n != "." && n != ".." {
			names = append(names, n)
		}
	}
	return names
}
