package microvm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/vm"
)

// DefaultImage is the image sandbox.hcl's default image names (built on
// first use).
const DefaultImage = config.DefaultImage

// NodePackages is Node.js and npm. They are installed by apt-get inside
// the new root after debootstrap: debootstrap's resolver does not follow
// virtual packages, and bookworm's npm depends on several.
var NodePackages = []string{"nodejs", "npm"}

// DockerImage is the image sandbox.hcl names for docker = true without an
// image (built on first use): DefaultPackages plus DockerPackages.
const DockerImage = config.DockerImage

// DockerPackages is the private Docker engine: Debian's docker.io brings
// dockerd, containerd, runc and iptables (nft).
var DockerPackages = []string{"docker.io"}

// Debian suite of the root images (matches the guest kernel's release).
const suite = "bookworm"

// ImageOptions describes a root image.
type ImageOptions struct {
	Name     string   // image name: [a-z0-9][a-z0-9._-]*; "" = DefaultImage
	Packages []string // packages on top of debootstrap's minbase
	Node     bool     // add nodejs and npm
	Mirror   string   // Debian mirror; "" = the one apt is configured with
	Size     int64    // ext4 size in bytes (sparse); 0 = 2 GiB. Sandboxes grow it to their disk size.
	Docker   bool     // add DockerPackages; the agent user joins the docker group
}

// imageMeta is written beside an image (NAME.json): what it was built with.
type imageMeta struct {
	Packages []string  `json:"packages"`
	Docker   bool      `json:"docker,omitempty"`
	Built    time.Time `json:"built"`
}

func metaPath(image string) string { return strings.TrimSuffix(image, ".img") + ".json" }

// readImageMeta reads an image's meta; images built before metas have none.
func readImageMeta(image string) (imageMeta, error) {
	var m imageMeta
	b, err := os.ReadFile(metaPath(image))
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(b, &m)
}

// ensureImage returns the base image spec boots, building the default
// images on first use. A sandbox with a Docker engine needs an image that
// has one: DockerImage (what config names for docker = true without an
// image), or one built with --docker.
func (b *Backend) ensureImage(ctx context.Context, spec vm.Spec) (string, error) {
	name := spec.Image // never "": config names DockerImage when docker = true
	if !validImageName(name) {
		return "", fmt.Errorf("image name %q: %w", name, vm.ErrInvalidSpec)
	}
	path := ImagePath(b.home, name)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if name != DefaultImage && name != DockerImage {
			return "", fmt.Errorf("image %s not built (airlock image build %s): %w", name, name, vm.ErrInvalidSpec)
		}
		opts := ImageOptions{Name: name, Packages: DefaultPackages, Docker: name == DockerImage}
		if _, err := BuildImage(ctx, b.home, opts, b.progress()); err != nil {
			return "", err
		}
	}
	if spec.Docker {
		if m, err := readImageMeta(path); err != nil || !m.Docker {
			return "", fmt.Errorf("image %s has no Docker engine (build one with `airlock image build --docker %s`, or name no image): %w", name, name, vm.ErrInvalidSpec)
		}
	}
	return path, nil
}

// DefaultPackages is what an agent needs in the default image.
// sudo: the agent is root in its own VM when it asks (the VM is the
// boundary; the workspace gate, egress, signer and review are host-side).
var DefaultPackages = []string{"bash", "git", "curl", "ca-certificates", "python3", "procps", "less", "sudo"}

var imageNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`) })

// validImageName: image names come from sandbox.hcl (untrusted) and become
// a file name under home/images.
func validImageName(name string) bool {
	return imageNameRE().MatchString(name) && !strings.Contains(name, "..")
}

// ImagePath is where the named image lives under home.
func ImagePath(home, name string) string {
	if name == "" {
		name = DefaultImage
	}
	return filepath.Join(home, "images", name+".img")
}

// BuildImage makes home/images/NAME.img: debootstrap --variant=minbase of
// Debian bookworm with the options' packages and the agent user (uid 1000),
// turned into an ext4 image by mkfs.ext4 -d (no loop mount). Progress lines
// go to progress. It needs root (debootstrap does).
func BuildImage(ctx context.Context, home string, opts ImageOptions, progress io.Writer) (string, error) {
	if progress == nil {
		progress = io.Discard
	}
	opts, err := opts.checked()
	if err != nil {
		return "", err
	}
	pkgs := append([]string(nil), opts.Packages...)
	if opts.Docker {
		pkgs = append(pkgs, DockerPackages...)
	}
	dst := ImagePath(home, opts.Name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	unlock, err := lockFile(dst + ".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	work, err := os.MkdirTemp(filepath.Dir(dst), "."+opts.Name+"-build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	root := filepath.Join(work, "root")
	cache := filepath.Join(home, "cache", "debootstrap")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	start := time.Now()
	fmt.Fprintf(progress, "debootstrap %s (minbase + %s) from %s\n", suite, strings.Join(pkgs, ","), opts.Mirror)
	args := []string{"--variant=minbase", "--cache-dir=" + cache}
	if len(pkgs) > 0 {
		args = append(args, "--include="+strings.Join(pkgs, ","))
	}
	args = append(args, suite, root, opts.Mirror)
	if err := runProgress(ctx, progress, "debootstrap", args...); err != nil {
		return "", fmt.Errorf("build image %s: %w", opts.Name, err)
	}
	if opts.Node {
		fmt.Fprintf(progress, "apt-get install %s (in the new root)\n", strings.Join(NodePackages, " "))
		if err := aptInstall(ctx, root, NodePackages); err != nil {
			return "", fmt.Errorf("build image %s: %w", opts.Name, err)
		}
		pkgs = append(pkgs, NodePackages...)
	}
	fmt.Fprintf(progress, "adding user agent (uid 1000), trimming caches\n")
	if err := finishRoot(root, opts.Docker); err != nil {
		return "", fmt.Errorf("build image %s: %w", opts.Name, err)
	}
	fmt.Fprintf(progress, "mkfs.ext4 -d -> %s\n", dst)
	if err := writeImage(ctx, root, filepath.Join(work, "image.img"), dst, opts.Size, imageMeta{Packages: pkgs, Docker: opts.Docker}); err != nil {
		return "", fmt.Errorf("build image %s: %w", opts.Name, err)
	}
	fmt.Fprintf(progress, "image %s ready in %v\n", opts.Name, time.Since(start).Round(time.Second))
	return dst, nil
}

// checked fills opts' defaults and says why an image cannot be built
// with them here (a bad name, not root, a missing tool).
func (opts ImageOptions) checked() (ImageOptions, error) {
	if opts.Name == "" {
		opts.Name = DefaultImage
	}
	if !validImageName(opts.Name) {
		return opts, fmt.Errorf("image name %q: want lowercase letters, digits, dots, dashes and underscores", opts.Name)
	}
	if os.Geteuid() != 0 {
		return opts, fmt.Errorf("build image %s: needs root (debootstrap)", opts.Name)
	}
	for _, tool := range []string{"debootstrap", "mkfs.ext4"} {
		if _, err := exec.LookPath(tool); err != nil {
			return opts, fmt.Errorf("build image %s: %s not found (apt-get install debootstrap e2fsprogs)", opts.Name, tool)
		}
	}
	if opts.Mirror == "" {
		opts.Mirror = aptMirror()
	}
	if opts.Size == 0 {
		opts.Size = 2 << 30
	}
	return opts, nil
}

// writeImage makes the ext4 image of root at tmp (size bytes, read-only),
// writes its metadata beside dst and moves it into place.
func writeImage(ctx context.Context, root, tmp, dst string, size int64, meta imageMeta) error {
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	f.Truncate(size)
	f.Close()
	if err := run(ctx, "", "mkfs.ext4", "-q", "-F", "-L", "airlock-root", "-d", root, tmp); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o444); err != nil {
		return err
	}
	meta.Built = time.Now().UTC()
	b, _ := json.MarshalIndent(meta, "", "  ")
	if err := fsx.WriteFileAtomic(metaPath(dst), b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// finishRoot adds the agent user (to the docker group too when the image
// has an engine) and removes what a sandbox never needs.
func finishRoot(root string, docker bool) error {
	appendLine := func(rel, line string) error {
		f, err := os.OpenFile(filepath.Join(root, rel), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = fmt.Fprintln(f, line)
		return err
	}
	for _, l := range [][2]string{
		{"etc/passwd", "agent:x:1000:1000:Airlock agent:/home/agent:/bin/bash"},
		{"etc/group", "agent:x:1000:"},
		{"etc/shadow", "agent:!:20000:0:99999:7:::"},
	} {
		if err := appendLine(l[0], l[1]); err != nil {
			return err
		}
	}
	if docker {
		if err := joinGroup(filepath.Join(root, "etc/group"), "docker", "agent"); err != nil {
			return err
		}
	}
	home := filepath.Join(root, "home/agent")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	skel, _ := os.ReadDir(filepath.Join(root, "etc/skel"))
	for _, e := range skel {
		if e.Type().IsRegular() {
			if err := fsx.CopyFile(filepath.Join(root, "etc/skel", e.Name()), filepath.Join(home, e.Name()), 0o644); err != nil {
				return err
			}
		}
	}
	if err := filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 1000, 1000)
	}); err != nil {
		return err
	}
	for _, d := range []string{"workspace", "run/airlock"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(root, "usr/bin/sudo")); err == nil {
		// Passwordless sudo for the agent: nothing in the guest is a
		// boundary (see DefaultPackages).
		// The proxy and CA variables survive sudo, so `sudo apt-get
		// install` goes through the sandbox's egress proxy like the
		// agent's own tools.
		if err := os.WriteFile(filepath.Join(root, "etc/sudoers.d/airlock-agent"), []byte(sudoers), 0o440); err != nil {
			return err
		}
	}
	os.WriteFile(filepath.Join(root, "etc/hostname"), []byte("airlock\n"), 0o644)
	os.WriteFile(filepath.Join(root, "etc/hosts"), []byte("127.0.0.1\tlocalhost\n::1\tlocalhost\n"), 0o644)
	os.Remove(filepath.Join(root, "etc/resolv.conf"))
	for _, g := range []string{"var/cache/apt/archives/*.deb", "var/cache/apt/*.bin", "var/lib/apt/lists/*", "usr/share/doc/*", "usr/share/man/*", "usr/share/info/*", "var/log/*.log"} {
		m, _ := filepath.Glob(filepath.Join(root, g))
		for _, p := range m {
			if filepath.Base(p) == "lock" || filepath.Base(p) == "partial" {
				continue
			}
			os.RemoveAll(p)
		}
	}
	return nil
}

// sudoers is the agent's passwordless sudo (see DefaultPackages).
const sudoers = `Defaults:agent env_keep += "HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy"
Defaults:agent env_keep += "SSL_CERT_FILE CURL_CA_BUNDLE REQUESTS_CA_BUNDLE PIP_CERT GIT_SSL_CAINFO NODE_EXTRA_CA_CERTS"
agent ALL=(ALL:ALL) NOPASSWD: ALL
`

// aptInstall installs pkgs in root with root's own apt (chroot), which
// resolves what debootstrap cannot; no service starts (policy-rc.d).
func aptInstall(ctx context.Context, root string, pkgs []string) error {
	policy := filepath.Join(root, "usr/sbin/policy-rc.d")
	if err := os.WriteFile(policy, []byte("#!/bin/sh\nexit 101\n"), 0o755); err != nil {
		return err
	}
	defer os.Remove(policy)
	env := []string{"env", "DEBIAN_FRONTEND=noninteractive", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}
	for _, args := range [][]string{
		{"apt-get", "update", "-q"},
		append([]string{"apt-get", "install", "-y", "-q", "--no-install-recommends"}, pkgs...),
		{"apt-get", "clean"},
	} {
		if err := run(ctx, "", "chroot", slices.Concat([]string{root}, env, args)...); err != nil {
			return err
		}
	}
	return nil
}

// joinGroup adds user to group in the group file at path (the group must
// exist: docker.io's postinst makes "docker").
func joinGroup(path, group, user string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for i, l := range lines {
		f := strings.Split(l, ":")
		if len(f) != 4 || f[0] != group {
			continue
		}
		members := strings.FieldsFunc(f[3], func(r rune) bool { return r == ',' })
		if !slices.Contains(members, user) {
			f[3] = strings.Join(append(members, user), ",")
		}
		lines[i] = strings.Join(f, ":")
		return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	}
	return fmt.Errorf("%s: no group %q", path, group)
}

// aptMirror returns the Debian mirror apt is configured with (deb822 or
// one-line sources), else deb.debian.org.
func aptMirror() string {
	files, _ := filepath.Glob("/etc/apt/sources.list.d/*")
	files = append([]string{"/etc/apt/sources.list"}, files...)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			fields := strings.Fields(l)
			var uri string
			switch {
			case len(fields) >= 2 && fields[0] == "URIs:":
				uri = fields[1]
			case len(fields) >= 3 && fields[0] == "deb":
				uri = fields[1]
				if strings.HasPrefix(uri, "[") {
					uri = fields[2]
				}
			}
			if strings.HasSuffix(strings.TrimSuffix(uri, "/"), "/debian") && strings.HasPrefix(uri, "http") {
				return uri
			}
		}
	}
	return "http://deb.debian.org/debian"
}

func runProgress(ctx context.Context, progress io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return err
	}
	var tail []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			l := sc.Text()
			tail = append(tail, l)
			if len(tail) > 20 {
				tail = tail[1:]
			}
			if strings.HasPrefix(l, "I: Retrieving") || strings.HasPrefix(l, "I: Validating") || strings.HasPrefix(l, "I: Unpacking") || strings.HasPrefix(l, "I: Configuring") {
				continue // too chatty: one line per package
			}
			fmt.Fprintf(progress, "  %s\n", l)
		}
		io.Copy(io.Discard, pr)
	}()
	err := cmd.Wait()
	pw.Close()
	<-done
	if err != nil {
		return fmt.Errorf("%s: %v: %s", name, err, strings.Join(tail, "; "))
	}
	return nil
}
