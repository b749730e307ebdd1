//go:build linux

package namespace

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
	"golang.org/x/crypto/ssh"
)

// The escape suite: each test runs commands as the agent inside a real
// namespace sandbox and checks that one way across the boundary stays shut.
// Each also checks that the same action works where it is allowed, so a
// sandbox that simply fails every command cannot pass.

func up(t *testing.T, id string, mutate func(*vm.Spec)) (*Backend, *ssh.Client, vm.Spec) {
	t.Helper()
	b := newBackend(t)
	o := options()
	spec, keys := vmtest.NewSpec(t, b, id, o)
	if mutate != nil {
		mutate(&spec)
	}
	vmtest.Up(t, b, spec, o)
	return b, vmtest.Connect(t, b, id, keys), spec
}

func randHex(t *testing.T) string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// shouldFail runs cmd and fails the test if it exits 0.
func shouldFail(t *testing.T, cl *ssh.Client, what, cmd string) string {
	t.Helper()
	out, errs, code := vmtest.Exec(t, cl, cmd)
	if code == 0 {
		t.Errorf("%s: %q succeeded inside the sandbox\nstdout: %s", what, cmd, out)
	}
	return out + errs
}

func TestEscapeHostFiles(t *testing.T) {
	canaryDir, err := os.MkdirTemp("/var/tmp", "airlock-canary-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(canaryDir) })
	os.Chmod(canaryDir, 0o755)
	secret := "canary-" + randHex(t)
	canary := filepath.Join(canaryDir, "canary.txt")
	if err := os.WriteFile(canary, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	b, cl, spec := up(t, "files", nil)
	vmtest.MustExec(t, cl, "cat /etc/hostname /etc/passwd >/dev/null") // positive control
	shouldFail(t, cl, "read a world-readable host file", "cat "+canary)
	shouldFail(t, cl, "reach the host root through PID 1", "ls /proc/1/root/")
	out := vmtest.MustExec(t, cl, "grep -rl "+secret+" /tmp /var /home /etc /run /workspace 2>/dev/null; true")
	if strings.Contains(out, "canary") {
		t.Errorf("canary content found inside: %s", out)
	}
	// Bind mounts name their host source in mountinfo (as with any
	// container); the names must not be reachable.
	mi := vmtest.MustExec(t, cl, "cat /proc/self/mountinfo")
	if !strings.Contains(mi, " /workspace ") {
		t.Errorf("positive control: no /workspace mount in\n%s", mi)
	}
	shouldFail(t, cl, "reach the host state dir", "ls "+b.root)
	shouldFail(t, cl, "reach the host state dir", "ls "+spec.StateDir+"/ssh")
	fds := vmtest.MustExec(t, cl, `for f in /proc/$$/fd/*; do readlink "$f"; done; true`)
	for _, l := range strings.Fields(fds) {
		if !(strings.HasPrefix(l, "pipe:") || strings.HasPrefix(l, "socket:") || strings.HasPrefix(l, "/dev/") ||
			strings.HasPrefix(l, "anon_inode:") || strings.HasPrefix(l, "/proc/")) {
			t.Errorf("session holds an unexpected descriptor: %s", l)
		}
	}
	if _, err := os.Stat(spec.StateDir); err != nil {
		t.Fatal(err)
	}
	// The cgroup namespace hides where the bridge sits in the host's tree.
	if own, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		inside := vmtest.MustExec(t, cl, "cat /proc/self/cgroup")
		for _, line := range strings.Split(strings.TrimSpace(string(own)), "\n") {
			f := strings.SplitN(line, ":", 3)
			if len(f) == 3 && len(f[2]) > 1 && strings.Contains(inside, f[2]) {
				t.Errorf("host cgroup path %s visible inside:\n%s", f[2], inside)
			}
		}
	}
	// /usr is the host's, read-only.
	shouldFail(t, cl, "write /usr", "touch /usr/bin/airlock-escape")
	shouldFail(t, cl, "write /", "mkdir /escape")
}

func TestEscapeHostProcesses(t *testing.T) {
	marker := "airlock-hostproc-" + randHex(t)
	host := exec.Command("bash", "-c", "exec -a "+marker+" sleep 300")
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Process.Kill(); host.Wait() })
	_, cl, _ := up(t, "procs", nil)
	out := vmtest.MustExec(t, cl, `cat /proc/[0-9]*/cmdline | tr '\0' ' '; echo; ls -d /proc/[0-9]* | wc -l`)
	if strings.Contains(out, marker) || strings.Contains(out, "sleep 300") {
		t.Errorf("host process visible inside:\n%s", out)
	}
	if !strings.Contains(out, "airlock-agent") {
		t.Errorf("positive control: the sandbox's own init is not visible:\n%s", out)
	}
	shouldFail(t, cl, "signal a host pid", fmt.Sprintf("kill -0 %d", host.Process.Pid))
}

func TestEscapeNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	_, cl, _ := up(t, "net", nil)
	// Positive control: loopback inside the sandbox works.
	vmtest.MustExec(t, cl, `python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); c=socket.create_connection(s.getsockname()); print("ok")' 2>/dev/null || bash -c 'exec 3<>/dev/tcp/127.0.0.1/1' 2>&1 | grep -q refused`)
	shouldFail(t, cl, "connect to the host's 127.0.0.1", fmt.Sprintf("timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d'", port))
	if n := accepted.Load(); n != 0 {
		t.Errorf("host canary server accepted %d connections from the sandbox", n)
	}
	ifs := vmtest.MustExec(t, cl, "tail -n +3 /proc/net/dev | cut -d: -f1")
	if strings.Fields(ifs)[0] != "lo" || len(strings.Fields(ifs)) != 1 {
		t.Errorf("interfaces inside = %q, want only lo", ifs)
	}
	shouldFail(t, cl, "resolve a name", "getent hosts example.com")
	out := shouldFail(t, cl, "send UDP (DNS) off the box", "timeout 5 bash -c 'echo x > /dev/udp/192.0.2.1/53'")
	if !strings.Contains(out, "unreachable") {
		t.Logf("udp attempt: %s", out)
	}
}

func TestEscapeBecomeRoot(t *testing.T) {
	b, cl, _ := up(t, "root", nil)
	st := vmtest.MustExec(t, cl, "grep -E '^(Uid|Gid|CapEff|CapPrm|CapBnd|NoNewPrivs)' /proc/self/status")
	for _, want := range []string{"CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "NoNewPrivs:\t1"} {
		if !strings.Contains(st, want) {
			t.Errorf("session status lacks %q:\n%s", want, st)
		}
	}
	shouldFail(t, cl, "sudo", "sudo -n id -u")
	if got := strings.TrimSpace(vmtest.MustExec(t, cl, "id -u; id -g")); got != "1000\n1000" {
		t.Errorf("ids = %q", got)
	}
	for _, su := range []string{"su -c 'id -u'", "/usr/bin/passwd -S root"} {
		if out, _, code := vmtest.Exec(t, cl, su+" </dev/null"); code == 0 && strings.TrimSpace(out) == "0" {
			t.Errorf("%s gave uid 0", su)
		}
	}
	// seccomp: no nested user namespaces, no set-id bits, no keyrings.
	for _, cmd := range []string{"unshare -r id -u", "unshare -Ur true",
		"touch /tmp/f && chmod u+s /tmp/f", "touch /workspace/f && chmod g+s /workspace/f",
		"install -m 4755 /bin/true /tmp/t",
		`python3 -c 'import os; os.close(os.open("/tmp/s", os.O_CREAT|os.O_WRONLY, 0o4755)); assert os.stat("/tmp/s").st_mode & 0o4000'`,
		`python3 -c 'import ctypes; assert ctypes.CDLL(None, use_errno=True).syscall(250, 0, -3, 0) >= 0'`} {
		if out, errs, code := vmtest.Exec(t, cl, cmd+" </dev/null"); code == 0 {
			t.Errorf("%s: succeeded (%q %q)", cmd, out, errs)
		}
	}
	vmtest.MustExec(t, cl, "touch /tmp/ok && chmod 755 /tmp/ok && mkdir -p /tmp/d && chmod 700 /tmp/d") // positive control
	if b.ids.single {
		// Under an unprivileged host user the agent's id is the only one
		// inside: there is no root to become and /etc is the agent's own.
		t.Log("single-id mapping: skipping the root-inside checks")
		return
	}
	shouldFail(t, cl, "write /etc/passwd", "echo 'x:x:0:0::/:/bin/sh' >> /etc/passwd")
	shouldFail(t, cl, "signal PID 1", "kill -9 1")
}

func TestEscapeSurviveRemove(t *testing.T) {
	marker := "airlock-leftover-" + randHex(t)
	b, cl, spec := up(t, "leftover", nil)
	vmtest.MustExec(t, cl, "nohup setsid bash -c 'exec -a "+marker+" sleep 600' >/dev/null 2>&1 & sleep 0.2")
	// Leftovers that make removal awkward: unreadable directories.
	vmtest.MustExec(t, cl, "mkdir -p /home/agent/a/b/c /workspace/x/y && touch /home/agent/a/b/c/f && chmod 000 /home/agent/a/b/c /home/agent/a /workspace/x")
	if len(hostPidsWith(marker)) == 0 {
		t.Fatal("positive control: the background process is not running")
	}
	cl.Close()
	if err := b.Remove(t.Context(), spec.ID); err != nil {
		t.Fatal(err)
	}
	if pids := hostPidsWith(marker); len(pids) != 0 {
		t.Errorf("processes survived rm: %v", pids)
	}
	if _, err := os.Stat(spec.StateDir); !os.IsNotExist(err) {
		t.Errorf("state dir left: %v", err)
	}
}

// hostPidsWith lists host processes whose command line contains s.
func hostPidsWith(s string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(data), s) {
			out = append(out, e.Name())
		}
	}
	return out
}

// hashTree hashes every path, mode, link target and file content under dir.
func hashTree(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	var paths []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		return nil
	})
	sort.Strings(paths)
	for _, p := range paths {
		fi, _ := os.Lstat(p)
		fmt.Fprintf(h, "%s %v %d\n", p, fi.Mode(), fi.ModTime().UnixNano())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			fmt.Fprintln(h, l)
		case fi.Mode().IsRegular():
			data, _ := os.ReadFile(p)
			h.Write(data)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hostRepo makes a git repository with a commit, an uncommitted change, an
// untracked file and a secret .env.
func hostRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "README"), []byte("committed\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "src", "main.go"), []byte("package main\n"), 0o644)
	run("init", "-q", "-b", "main")
	run("add", ".")
	run("commit", "-q", "-m", "init")
	os.WriteFile(filepath.Join(dir, "README"), []byte("committed\nuncommitted edit\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "untracked.txt"), []byte("untracked\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("SECRET=hunter2-"+randHex(t)+"\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "config"), 0o755)
	os.WriteFile(filepath.Join(dir, "config", "key.pem"), []byte("PRIVATE KEY\n"), 0o644)
	// The parent is world-traversable so a leak could not hide behind
	// permissions alone.
	os.Chmod(filepath.Dir(dir), 0o755)
	return dir
}

var hide = []string{".env", "config/*.pem"}

func TestEscapeCloneMode(t *testing.T) {
	repo := hostRepo(t)
	before := hashTree(t, repo)
	_, cl, _ := up(t, "clone", func(s *vm.Spec) {
		s.Workspace = vm.Workspace{HostPath: repo, Mode: vm.ModeClone, Target: "/workspace", Hide: hide}
	})
	// The private clone has the work in progress, not the secrets.
	got := vmtest.MustExec(t, cl, "cd /workspace && cat README untracked.txt src/main.go && git log --oneline | wc -l")
	if got != "committed\nuncommitted edit\nuntracked\npackage main\n1\n" {
		t.Errorf("clone content = %q", got)
	}
	shouldFail(t, cl, "read a hidden file", "cat /workspace/.env")
	shouldFail(t, cl, "read a hidden glob", "cat /workspace/config/key.pem")
	shouldFail(t, cl, "see the host repo path", "ls "+repo)
	// Do everything an agent might to the repo it has.
	vmtest.MustExec(t, cl, `cd /workspace && echo evil > README && echo '#!/bin/sh' > .git/hooks/pre-commit &&
		chmod +x .git/hooks/pre-commit && git config core.hooksPath /tmp && git -c user.name=a -c user.email=a@a commit -qam evil &&
		rm -rf src && git remote add origin `+repo+` ; git push -q origin HEAD:main 2>/dev/null; true`)
	if after := hashTree(t, repo); after != before {
		t.Errorf("host repo changed: %s -> %s", before, after)
	}
}

func TestEscapeDirectMode(t *testing.T) {
	repo := hostRepo(t)
	config, _ := os.ReadFile(filepath.Join(repo, ".git", "config"))
	hooks := hashTree(t, filepath.Join(repo, ".git", "hooks"))
	os.WriteFile(filepath.Join(repo, "src", "deps.lock"), []byte("pinned\n"), 0o644)
	_, cl, _ := up(t, "direct", func(s *vm.Spec) {
		s.Workspace = vm.Workspace{HostPath: repo, Mode: vm.ModeDirect, Target: "/workspace", Hide: hide,
			Protect: []string{".git/hooks", ".git/config", "*.lock"}}
	})
	shouldFail(t, cl, "write a protect glob match", "echo x >> /workspace/src/deps.lock")
	// Positive control: the share is live and writable; new files belong
	// to the folder's owner on the host.
	vmtest.MustExec(t, cl, "echo from-agent > /workspace/new.txt && echo more >> /workspace/README && mkdir -p /workspace/src/x")
	if data, err := os.ReadFile(filepath.Join(repo, "new.txt")); err != nil || string(data) != "from-agent\n" {
		t.Fatalf("direct mode write not visible on host: %q %v", data, err)
	}
	fi, _ := os.Stat(filepath.Join(repo, "new.txt"))
	rfi, _ := os.Stat(repo)
	if fi != nil && rfi != nil && fileUID(fi) != fileUID(rfi) {
		t.Errorf("new file owned by host uid %d, want the folder owner %d", fileUID(fi), fileUID(rfi))
	}
	vmtest.MustExec(t, cl, "cd /workspace && git status --short >/dev/null") // git works, on the agent's private .git
	// Whatever the agent does to /workspace/.git lands in its private git
	// directory (gitescape_test.go has every attack); the host's stays as it was.
	vmtest.Exec(t, cl, `mkdir -p /workspace/.git/hooks && echo '#!/bin/sh' > /workspace/.git/hooks/pre-commit;
		git -C /workspace config core.hooksPath /tmp; echo '[core]hooksPath=/tmp' >> /workspace/.git/config;
		rm -rf /workspace/.git/hooks; ln /workspace/.git/config /workspace/cfg && echo x >> /workspace/cfg`)
	shouldFail(t, cl, "swap .git away", "mv /workspace/.git /workspace/.git-old")
	shouldFail(t, cl, "read a hidden file", "cat /workspace/.env | grep SECRET")
	shouldFail(t, cl, "read a hidden glob", "grep KEY /workspace/config/key.pem")
	shouldFail(t, cl, "remove a hidden file", "rm /workspace/.env")
	shouldFail(t, cl, "overwrite a hidden file", "echo x > /workspace/.env")
	shouldFail(t, cl, "rename the directory of a hidden file", "mv /workspace/config /workspace/config2")
	// No repository can appear in the folder for host git to run in.
	shouldFail(t, cl, "a nested repo", "git init -q /workspace/src/a")
	shouldFail(t, cl, "a gitfile", "echo 'gitdir: /tmp/x' > /workspace/src/.git")
	shouldFail(t, cl, "a bare repo", "mkdir -p /workspace/b/objects /workspace/b/refs && echo 'ref: refs/heads/x' > /workspace/b/HEAD")
	shouldFail(t, cl, "a set-uid file", "cp /bin/true /workspace/t && chmod 4755 /workspace/t && test -u /workspace/t")
	if after, _ := os.ReadFile(filepath.Join(repo, ".git", "config")); string(after) != string(config) {
		t.Errorf(".git/config changed:\n%s", after)
	}
	if h := hashTree(t, filepath.Join(repo, ".git", "hooks")); h != hooks {
		t.Errorf(".git/hooks changed")
	}
	if _, err := os.Stat(filepath.Join(repo, ".env")); err != nil {
		t.Errorf("host .env gone: %v", err)
	}
}

func TestMountlessIsEmpty(t *testing.T) {
	_, cl, _ := up(t, "empty", nil)
	if got := vmtest.MustExec(t, cl, "ls -A /workspace | wc -l; touch /workspace/f && echo w"); got != "0\nw\n" {
		t.Errorf("mountless workspace: %q", got)
	}
	_ = time.Second
}

func fileUID(fi os.FileInfo) uint32 { return fi.Sys().(*syscall.Stat_t).Uid }

func TestEscapeDirectMissingHooks(t *testing.T) {
	repo := hostRepo(t)
	if err := os.RemoveAll(filepath.Join(repo, ".git", "hooks")); err != nil {
		t.Fatal(err)
	}
	_, cl, _ := up(t, "nohooks", func(s *vm.Spec) {
		s.Workspace = vm.Workspace{HostPath: repo, Mode: vm.ModeDirect, Target: "/workspace",
			Protect: []string{".git/hooks", ".git/config"}}
	})
	vmtest.MustExec(t, cl, "echo ok > /workspace/ok") // positive control
	vmtest.Exec(t, cl, "mkdir -p /workspace/.git/hooks && echo '#!/bin/sh' > /workspace/.git/hooks/pre-commit")
	if ents, _ := os.ReadDir(filepath.Join(repo, ".git", "hooks")); len(ents) != 0 {
		t.Errorf("hooks appeared on the host: %v", ents)
	}
}

func TestFilesAndMounts(t *testing.T) {
	ro := t.TempDir()
	rw := t.TempDir()
	os.Chmod(filepath.Dir(ro), 0o755)
	os.Chmod(ro, 0o755)
	os.WriteFile(filepath.Join(ro, "data.txt"), []byte("shared\n"), 0o644)
	_, cl, _ := up(t, "files2", func(s *vm.Spec) {
		s.Files = []vm.File{
			{Path: "/etc/gitconfig", Mode: 0o644, Data: []byte("[user]\n\tname = agent\n")},
			{Path: "/run/airlock/ca.pem", Mode: 0o644, Data: []byte("CA\n")},
			{Path: "/home/agent/.config/airlock/x", Mode: 0o600, Data: []byte("mine\n")},
		}
		s.Mounts = []vm.Mount{
			{Name: "ro", Source: ro, Target: "/mnt/ro", ReadOnly: true},
			{Name: "rw", Source: rw, Target: "/mnt/rw"},
		}
	})
	got := vmtest.MustExec(t, cl, "git config --system user.name; cat /run/airlock/ca.pem /home/agent/.config/airlock/x; stat -c '%U %a' /etc/gitconfig /home/agent/.config/airlock/x")
	if got != "agent\nCA\nmine\nroot 644\nagent 600\n" {
		t.Errorf("files inside = %q", got)
	}
	shouldFail(t, cl, "change a file placed in /etc", "echo x >> /etc/gitconfig")
	if got := vmtest.MustExec(t, cl, "cat /mnt/ro/data.txt; echo w > /mnt/rw/out"); got != "shared\n" {
		t.Errorf("ro mount = %q", got)
	}
	shouldFail(t, cl, "write a read-only mount", "echo x > /mnt/ro/new")
	if data, err := os.ReadFile(filepath.Join(rw, "out")); err != nil || string(data) != "w\n" {
		t.Errorf("rw mount write not on host: %q %v", data, err)
	}
}

// TestEscapeSeparateIDs: two sandboxes' agents are different host users
// (a 1 in 8192 hash collision would make this fail).
func TestEscapeSeparateIDs(t *testing.T) {
	b1, cl1, _ := up(t, "ida", nil)
	if b1.ids.single {
		t.Skip("single-id mapping: every sandbox is the host user")
	}
	_, cl2, _ := up(t, "idb", nil)
	// The homes are on the sandboxes' disk images: compare the host uids
	// of the agents' processes instead.
	mark := "airlock-ids-" + randHex(t)
	vmtest.MustExec(t, cl1, "nohup setsid bash -c 'exec -a "+mark+"-a sleep 60' >/dev/null 2>&1 & sleep 0.2")
	vmtest.MustExec(t, cl2, "nohup setsid bash -c 'exec -a "+mark+"-b sleep 60' >/dev/null 2>&1 & sleep 0.2")
	uid := func(m string) int {
		pids := hostPidsWith(m)
		if len(pids) != 1 {
			t.Fatalf("%s: host pids %v", m, pids)
		}
		data, err := os.ReadFile(filepath.Join("/proc", pids[0], "status"))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" {
				n, _ := strconv.Atoi(f[1])
				return n
			}
		}
		t.Fatalf("no Uid in %s", data)
		return 0
	}
	u1, u2 := uid(mark+"-a"), uid(mark+"-b")
	if u1 == u2 || u1 < 65536 || u2 < 65536 {
		t.Errorf("agents share or use low host uids: %d, %d", u1, u2)
	}
}

// TestReapsOrphans: PID 1 reaps orphans (a daemonised child whose parent
// exited), so they do not pile up as zombies.
func TestReapsOrphans(t *testing.T) {
	_, cl, _ := up(t, "reap", nil)
	vmtest.MustExec(t, cl, "for i in 1 2 3 4 5; do setsid bash -c 'sleep 0.1 & exit'; done; sleep 1")
	out := vmtest.MustExec(t, cl, `for f in /proc/[0-9]*/stat; do cat "$f" 2>/dev/null; echo; done | awk '{print $3}' | sort | uniq -c`)
	if strings.Contains(out, " Z") {
		t.Errorf("zombies inside the sandbox:\n%s", out)
	}
	if !strings.Contains(out, " S") && !strings.Contains(out, " R") {
		t.Errorf("positive control: no live processes listed:\n%s", out)
	}
}

// TestEscapeDirectSymlinkedGit: a .git that is a symlink (say, planted by
// an agent in a folder that had none) makes the start fail closed rather
// than leave hooks writable or resolve the link on the host side.
func TestEscapeDirectSymlinkedGit(t *testing.T) {
	repo := hostRepo(t)
	real := filepath.Join(filepath.Dir(repo), "elsewhere")
	if err := os.Rename(filepath.Join(repo, ".git"), real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(repo, ".git")); err != nil {
		t.Fatal(err)
	}
	b := newBackend(t)
	o := options()
	spec, _ := vmtest.NewSpec(t, b, "gitlink", o)
	spec.Workspace = vm.Workspace{HostPath: repo, Mode: vm.ModeDirect, Target: "/workspace", Protect: []string{".git/hooks", ".git/config"}}
	if err := b.Create(t.Context(), spec); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Remove(context.Background(), spec.ID) })
	err := b.Start(t.Context(), spec.ID)
	if err == nil {
		t.Fatal("start with a symlinked .git succeeded")
	}
	if !strings.Contains(err.Error(), "symlink") {
		t.Errorf("start error = %v, want it to name the symlink", err)
	}
	if testing.Verbose() {
		t.Log(err)
	}
}
