package ociimage

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/fsx"
)

// The sandbox image: a microVM root image (ext4, as `airlock image build`
// makes it) read out with debugfs (no mount, no loop device), plus the
// static airlock-agent at AgentPath.

// AgentPath is where the sandbox image carries airlock-agent.
const AgentPath = "/usr/lib/airlock/airlock-agent"

// WriteSandboxArchive writes the sandbox image of ext4Image as an archive
// at dst tagged ref (`ctr images import`, `docker load`).
func WriteSandboxArchive(ctx context.Context, ext4Image, agentBinary, ref, dst string) error {
	root, cleanup, err := SandboxRoot(ctx, ext4Image, agentBinary, filepath.Dir(dst))
	if err != nil {
		return err
	}
	defer cleanup()
	return WriteArchive(dst, ref, root, SandboxConfig)
}

// PushSandbox pushes the sandbox image of ext4Image to ref; it returns
// the manifest's digest.
func PushSandbox(ctx context.Context, ext4Image, agentBinary, ref string) (string, error) {
	root, cleanup, err := SandboxRoot(ctx, ext4Image, agentBinary, "")
	if err != nil {
		return "", err
	}
	defer cleanup()
	return Push(ctx, ref, root, SandboxConfig)
}

// SandboxConfig: the agent user, and airlock-agent as the entrypoint
// (the kubernetes backend's pod spec gives its own command line).
var SandboxConfig = Config{
	User:       "1000:1000",
	Env:        []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
	WorkingDir: "/workspace",
	Entrypoint: []string{AgentPath},
}

// SandboxRoot reads the ext4 image's tree into a directory under
// workParent ("" = the system's temporary directory) and adds the agent.
func SandboxRoot(ctx context.Context, ext4Image, agentBinary, workParent string) (root string, cleanup func(), err error) {
	if _, err := exec.LookPath("debugfs"); err != nil {
		return "", nil, fmt.Errorf("debugfs not found (apt-get install e2fsprogs)")
	}
	work, err := os.MkdirTemp(workParent, ".oci-build-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(work) }
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	root = filepath.Join(work, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		return "", nil, err
	}
	// rdump keeps owners and modes (run as root for the owners).
	ents, err := exec.CommandContext(ctx, "debugfs", "-R", "ls -p /", ext4Image).Output()
	if err != nil {
		return "", nil, fmt.Errorf("debugfs ls %s: %w", ext4Image, err)
	}
	for _, name := range topLevel(string(ents)) {
		if name == "lost+found" || name == "dev" || name == "proc" || name == "sys" {
			if err := os.Mkdir(filepath.Join(root, name), 0o755); err != nil {
				return "", nil, err
			}
			continue
		}
		out, err := exec.CommandContext(ctx, "debugfs", "-R", fmt.Sprintf("rdump \"/%s\" %s", name, root), ext4Image).CombinedOutput()
		if err != nil {
			return "", nil, fmt.Errorf("debugfs rdump /%s: %v: %s", name, err, out)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "bin")); err != nil {
		return "", nil, fmt.Errorf("%s: no /bin in the image", ext4Image)
	}
	// A copy of the agent in the root: the layer is read twice (digest,
	// then write) and the host binary may be replaced meanwhile.
	agentDst := filepath.Join(root, AgentPath)
	if err := os.MkdirAll(filepath.Dir(agentDst), 0o755); err != nil {
		return "", nil, err
	}
	if err := fsx.CopyFile(agentBinary, agentDst, 0o755); err != nil {
		return "", nil, err
	}
	if err := os.Chmod(agentDst, 0o755); err != nil {
		return "", nil, err
	}
	return root, cleanup, nil
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
