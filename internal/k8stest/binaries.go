package k8stest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// Version is the Kubernetes release the test cluster runs.
const Version = "v1.37.2"

// stagingVersion is the version the staging modules (k8s.io/api,
// k8s.io/client-go, ...) are published at for Version.
const stagingVersion = "v0.37.2"

// Binaries are the cluster programs built from k8s.io/kubernetes.
var Binaries = []string{"kube-apiserver", "kube-controller-manager", "kubelet"}

// CacheDir is where built binaries live, keyed by version:
// $AIRLOCK_K8S_CACHE, else /var/cache/airlock-k8s for root, else the user's
// cache directory's airlock-k8s. The Go build cache kept next to them
// (gocache) makes a rebuild after a Go upgrade minutes, not half an hour.
func CacheDir() string {
	if d := os.Getenv("AIRLOCK_K8S_CACHE"); d != "" {
		return d
	}
	if os.Geteuid() == 0 {
		return "/var/cache/airlock-k8s"
	}
	c, err := os.UserCacheDir()
	if err != nil {
		c = os.TempDir()
	}
	return filepath.Join(c, "airlock-k8s")
}

// BinDir is the directory holding Version's binaries under cache.
func BinDir(cache string) string { return filepath.Join(cache, Version, "bin") }

// Cached reports whether every binary is already built under cache.
func Cached(cache string) bool {
	for _, b := range Binaries {
		if fi, err := os.Stat(filepath.Join(BinDir(cache), b)); err != nil || fi.Size() == 0 {
			return false
		}
	}
	return true
}

// EnsureBinaries builds kube-apiserver, kube-controller-manager and kubelet
// into BinDir(cache) unless they are there: k8s.io/kubernetes at Version as
// the one requirement of a scratch module whose replace lines map every
// staging module kubernetes requires at v0.0.0 to its published version
// (generated from kubernetes' own go.mod). The build runs at nice 19 with
// its own GOCACHE under cache. Progress lines go to progress.
func EnsureBinaries(ctx context.Context, cache string, progress io.Writer) (string, error) {
	if progress == nil {
		progress = io.Discard
	}
	bin := BinDir(cache)
	if Cached(cache) {
		return bin, nil
	}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Join(cache, Version+".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if Cached(cache) { // built by whoever held the lock
		return bin, nil
	}
	src := filepath.Join(cache, Version, "src")
	if err := writeScratchModule(ctx, src); err != nil {
		return "", err
	}
	ld := strings.Join([]string{"-s", "-w",
		"-X", "k8s.io/component-base/version.gitVersion=" + Version,
		"-X", "k8s.io/component-base/version.gitMajor=1",
		"-X", "k8s.io/component-base/version.gitMinor=37",
		"-X", "k8s.io/component-base/version.gitTreeState=clean",
		"-X", "k8s.io/client-go/pkg/version.gitVersion=" + Version,
	}, " ")
	for _, b := range Binaries {
		if fi, err := os.Stat(filepath.Join(bin, b)); err == nil && fi.Size() > 0 {
			continue
		}
		start := time.Now()
		fmt.Fprintf(progress, "building %s %s (nice 19; cold about 15 minutes for all three on 2 cores, a minute or two with a warm Go cache)\n", b, Version)
		tmp := filepath.Join(bin, "."+b+".tmp")
		cmd := exec.CommandContext(ctx, "nice", "-n", "19", "go", "build", "-trimpath", "-tags", "providerless",
			"-ldflags", ld, "-o", tmp, "k8s.io/kubernetes/cmd/"+b)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOCACHE="+filepath.Join(cache, "gocache"), "CGO_ENABLED=0", "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("build %s: %v\n%s", b, err, tail(out, 4000))
		}
		if err := os.Rename(tmp, filepath.Join(bin, b)); err != nil {
			return "", err
		}
		fmt.Fprintf(progress, "built %s in %v\n", b, time.Since(start).Round(time.Second))
	}
	return bin, nil
}

var stagingRE = regexp.MustCompile(`(?m)^\s+(k8s\.io/[a-z0-9-]+) => \./staging/`)

// writeScratchModule writes src/go.mod (and go.sum through go mod tidy).
func writeScratchModule(ctx context.Context, src string) error {
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", "k8s.io/kubernetes@"+Version)
	cmd.Dir = src
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go mod download k8s.io/kubernetes@%s: %v", Version, err)
	}
	var info struct{ GoMod string }
	if err := json.Unmarshal(out, &info); err != nil || info.GoMod == "" {
		return fmt.Errorf("go mod download k8s.io/kubernetes: no go.mod in %q", out)
	}
	kmod, err := os.ReadFile(info.GoMod)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "module airlock.local/k8sbuild\n\ngo 1.26.0\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n", Version)
	n := 0
	for _, m := range stagingRE.FindAllStringSubmatch(string(kmod), -1) {
		if strings.HasPrefix(m[1], "k8s.io/sample-") { // not served, not needed
			continue
		}
		fmt.Fprintf(&b, "\t%s => %s %s\n", m[1], m[1], stagingVersion)
		n++
	}
	b.WriteString(")\n")
	if n < 20 {
		return fmt.Errorf("kubernetes go.mod: only %d staging modules found", n)
	}
	tools := "//go:build tools\n\npackage tools\n\nimport (\n"
	for _, bin := range Binaries {
		tools += "\t_ \"k8s.io/kubernetes/cmd/" + bin + "\"\n"
	}
	tools += ")\n"
	if err := os.WriteFile(filepath.Join(src, "go.mod"), b.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "tools.go"), []byte(tools), 0o644); err != nil {
		return err
	}
	cmd = exec.CommandContext(ctx, "go", "mod", "tidy")
	cmd.Dir = src
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go mod tidy in %s: %v\n%s", src, err, tail(out, 2000))
	}
	return nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// lock takes an exclusive flock on path (waiting for it).
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// readLines returns the non-empty lines of a file ("" when missing).
func readLines(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		if l := strings.TrimSpace(s.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}

var errNotRoot = errors.New("the test cluster needs root (kubelet, containerd, mounts)")
