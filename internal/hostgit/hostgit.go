package hostgit

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Hardening is prepended to every command. Pack windows are kept small,
// and objects over 64 MiB streamed rather than held whole, so that git
// works within MaxMemBytes of address space on large repositories and
// files too (its 64-bit defaults map up to 1 GiB per window and hold
// objects up to 512 MiB).
var Hardening = []string{
	"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
	"-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "core.untrackedCache=false",
	"-c", "core.packedGitWindowSize=32m", "-c", "core.packedGitLimit=256m", "-c", "core.bigFileThreshold=64m",
}

// MaxMemBytes bounds the address space of every git process this package
// starts, and of its children (RLIMIT_AS through util-linux's prlimit): a
// sandbox sizes what review's git builds in memory. A 199-byte pack whose
// delta declares a 2 GiB blob made index-pack take 2.1 GB (outside round
// history4/08), a 3 kB tree of shared subtrees made diff-tree take 4.9 GB
// and, one level deeper, the whole machine (history4/06). Past the bound
// git fails, and review with it: nothing is applied.
var MaxMemBytes int64 = 1 << 30

// Limited is the program and arguments that run git with args under
// MaxMemBytes (and under fsize, the largest file it may write, when > 0),
// through prlimit so that no child escapes the limits.
func Limited(fsize int64, args ...string) (string, []string, error) {
	p, err := exec.LookPath("prlimit")
	if err != nil {
		return "", nil, fmt.Errorf("git %s: no prlimit (util-linux) to bound it: %w", strings.Join(args[:min(len(args), 1)], ""), err)
	}
	lim := []string{fmt.Sprintf("--as=%d", MaxMemBytes)}
	if fsize > 0 {
		lim = append(lim, fmt.Sprintf("--fsize=%d", fsize))
	}
	return p, append(append(lim, "--", "git"), args...), nil
}

// MallocEnv keeps glibc from reserving address space per thread (64 MiB
// an arena) that MaxMemBytes would count.
const MallocEnv = "MALLOC_ARENA_MAX=2"

// stderrCap bounds how much of git's stderr is kept for error messages.
const stderrCap = 4 << 10

// Cmd is one git invocation on the host.
type Cmd struct {
	Dir    string    // working directory ("" = inherit)
	Env    []string  // extra environment, KEY=VALUE
	Config []string  // extra `-c key=value` settings, e.g. "safe.directory=*"
	Stdin  io.Reader // nil = no input
	// MaxFileBytes, when > 0, is the largest file git and its children may
	// write (RLIMIT_FSIZE, set by util-linux's prlimit before git starts,
	// so no child escapes it): a fetch from a sandbox writes a pack the
	// sandbox sizes. A write past it kills the writer (SIGXFSZ); without
	// prlimit the command is refused rather than run unbounded.
	MaxFileBytes int64
	Stdout       io.Writer // nil = returned by Run
	// Stderr, when set, receives all of git's stderr (the caller bounds
	// it); the error then carries none of it.
	Stderr io.Writer
}

// Run runs `git ARGS...` and returns its stdout (unless c.Stdout is set).
// The error carries at most 400 bytes of git's stderr.
func (c Cmd) Run(ctx context.Context, args ...string) ([]byte, error) {
	full := append([]string{}, Hardening...)
	for _, kv := range c.Config {
		full = append(full, "-c", kv)
	}
	name, argv, err := Limited(c.MaxFileBytes, append(full, args...)...)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, name, argv...)
	cmd.Dir = c.Dir
	// When ctx ends, git is killed with its whole process group: its
	// children (ssh, a ProxyCommand) would otherwise outlive it, and a
	// ProxyCommand starting after its bridge stopped acts on stale state.
	// Stop waiting for pipes a detached child (an ssh ControlMaster) may
	// hold shortly after.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", MallocEnv)
	cmd.Env = append(cmd.Env, c.Env...)
	cmd.Stdin = c.Stdin
	var out strings.Builder
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	} else {
		cmd.Stdout = &out
	}
	stderr := &capped{max: stderrCap}
	cmd.Stderr = stderr
	if c.Stderr != nil {
		cmd.Stderr = c.Stderr
	}
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.b.String())
		if len(msg) > 400 {
			msg = msg[:400]
		}
		verb := "git"
		if len(args) > 0 {
			verb = "git " + args[0]
		}
		return []byte(out.String()), fmt.Errorf("%s: %w: %s", verb, err, msg)
	}
	return []byte(out.String()), nil
}

// capped keeps the first max bytes written and drops the rest.
type capped struct {
	b   strings.Builder
	max int
}

func (w *capped) Write(p []byte) (int, error) {
	if room := w.max - w.b.Len(); room > 0 {
		if len(p) > room {
			w.b.Write(p[:room])
		} else {
			w.b.Write(p)
		}
	}
	return len(p), nil
}
