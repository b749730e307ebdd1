package microvm

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/airlock-sandbox/airlock/internal/fsx"
)

// DefaultImage is the image a sandbox boots when its Spec names none.
const DefaultImage = "debian-bookworm"

// Debian suite of the root images (matches the guest kernel's release).
const suite = "bookworm"

// ImageOptions describes a root image.
type ImageOptions struct {
	Name     string   // image name: [a-z0-9][a-z0-9._-]*; "" = DefaultImage
	Packages []string // packages on top of debootstrap's minbase
	Node     bool     // add nodejs and npm
	Mirror   string   // Debian mirror; "" = the one apt is configured with
	Size     int64    // ext4 size in bytes (sparse); 0 = 2 GiB. Sandboxes grow it to their disk size.
}

// DefaultPackages is what an agent needs in the default image.
// sudo: the agent is root in its own VM when it asks (the VM is the
// boundary; the workspace gate, egress, signer and review are host-side).
var DefaultPackages = []string{"bash", "git", "curl", "ca-certificates", "python3", "procps", "less", "sudo"}

var imageNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// validImageName: image names come from sandbox.hcl (untrusted) and become
// a file name under home/images.
func validImageName(name string) bool {
	return imageNameRE.MatchString(name) && !strings.Contains(name, "..")
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
	if opts.Name == "" {
		opts.Name = DefaultImage
	}
	if !validImageName(opts.Name) {
		return "", fmt.Errorf("image name %q: want lowercase letters, digits, dots, dashes and underscores", opts.Name)
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("build image %s: needs root (debootstrap)", opts.Name)
	}
	for _, tool := range []string{"debootstrap", "mkfs.ext4"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("build image %s: %s not found (apt-get install debootstrap e2fsprogs)", opts.Name, tool)
		}
	}
	if opts.Mirror == "" {
		opts.Mirror = aptMirror()
	}
	if opts.Size == 0 {
		opts.Size = 2 << 30
	}
	pkgs := append([]string(nil), opts.Packages...)
	if opts.Node {
		pkgs = append(pkgs, "nodejs", "npm")
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
	fmt.Fprintf(progress, "adding user agent (uid 1000), trimming caches\n")
	if err := finishRoot(root); err != nil {
		return "", fmt.Errorf("build image %s: %w", opts.Name, err)
	}
	fmt.Fprintf(progress, "mkfs.ext4 -d -> %s\n", dst)
	tmp := filepath.Join(work, "image.img")
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	f.Truncate(opts.Size)
	f.Close()
	if err := run(ctx, "", "mkfs.ext4", "-q", "-F", "-L", "airlock-root", "-d", root, tmp); err != nil {
		return "", fmt.Errorf("build image %s: %w", opts.Name, err)
	}
	if err := os.Chmod(tmp, 0o444); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return "", err
	}
	fmt.Fprintf(progress, "image %s ready in %v\n", opts.Name, time.Since(start).Round(time.Second))
	return dst, nil
}

// finishRoot adds the agent user and removes what a sandbox never needs.
func finishRoot(root string) error {
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
		if err := os.WriteFile(filepath.Join(root, "etc/sudoers.d/airlock-agent"), []byte("agent ALL=(ALL:ALL) NOPASSWD: ALL\n"), 0o440); err != nil {
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
