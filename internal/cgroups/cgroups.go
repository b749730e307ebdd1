//go:build linux

// Package cgroups makes the cgroups that bound a sandbox and the host
// processes that serve it: limits for CPUs, memory and processes (the pids
// controller, which counts threads too). Each controller goes where this host has it:
// in the cgroup v2 hierarchy (one group /sys/fs/cgroup/airlock/ID for all
// the v2 controllers) or, on hosts still on v1 for it (this machine: a
// hybrid mount whose v2 part has none), in its own v1 group under
// CONTROLLER/airlock/ID. A controller found in neither leaves that limit
// unset and Status.Note says so.
package cgroups

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/airlock-sandbox/airlock/internal/fsx"
)

const cgroupRoot = "/sys/fs/cgroup"

// Group is one set of cgroups: one directory for v2, one per controller for v1.
type Group struct {
	Dirs []string // groups the init joins (one for v2; one per controller for v1)
}

// Limits are the limits of one group; 0 = none.
type Limits struct {
	CPUs   int
	Memory int64
	Pids   int
}

// controllers lists the controllers lim needs, in a fixed order.
func (lim Limits) controllers() []string {
	var cs []string
	if lim.CPUs > 0 {
		cs = append(cs, "cpu")
	}
	if lim.Memory > 0 {
		cs = append(cs, "memory")
	}
	if lim.Pids > 0 {
		cs = append(cs, "pids")
	}
	return cs
}

// Setup creates the groups for id with the limits set. It returns a
// group (possibly empty) and a note naming the limits it could not apply
// and the controllers it found only in cgroup v1.
func Setup(id string, lim Limits) (*Group, string) {
	cg := &Group{}
	want := lim.controllers()
	if len(want) == 0 {
		return cg, ""
	}
	var v2, rest []string
	root, errV2 := v2Mount()
	if errV2 == nil {
		ctrl, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
		if err != nil {
			errV2 = err
		}
		for _, c := range want {
			if err == nil && hasWord(string(ctrl), c) {
				v2 = append(v2, c)
			} else {
				rest = append(rest, c)
			}
		}
	} else {
		rest = want
	}
	if len(v2) > 0 {
		if errV2 = cg.setupV2(root, id, v2, lim); errV2 != nil {
			cg.Remove()
			cg.Dirs = nil
			rest = want
		}
	}
	var notes, v1 []string
	for _, c := range rest {
		if err := cg.setupV1(id, c, lim); err != nil {
			why := "not in cgroup v2 here"
			if errV2 != nil {
				why = "cgroup v2: " + errV2.Error()
			}
			notes = append(notes, fmt.Sprintf("no %s limit (%s; cgroup v1: %v)", c, why, err))
			continue
		}
		v1 = append(v1, c)
	}
	if len(v1) > 0 {
		notes = append([]string{"cgroup v1 limits for " + strings.Join(v1, ", ") + " (not in cgroup v2 here)"}, notes...)
	}
	return cg, strings.Join(notes, "; ")
}

func v2Mount() (string, error) {
	for _, d := range []string{cgroupRoot, cgroupRoot + "/unified"} {
		if _, err := os.Stat(filepath.Join(d, "cgroup.controllers")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("no cgroup2 mount")
}

func (cg *Group) setupV2(root, id string, ctrls []string, lim Limits) error {
	enable := []byte("+" + strings.Join(ctrls, " +"))
	parent := filepath.Join(root, "airlock")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), enable, 0); err != nil {
		return fmt.Errorf("enable controllers: %w", err)
	}
	if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), enable, 0); err != nil {
		return fmt.Errorf("enable controllers: %w", err)
	}
	dir := filepath.Join(parent, id)
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return err
	}
	cg.Dirs = append(cg.Dirs, dir)
	for _, c := range ctrls {
		var err error
		switch c {
		case "cpu":
			err = os.WriteFile(filepath.Join(dir, "cpu.max"), fmt.Appendf(nil, "%d 100000", lim.CPUs*100000), 0)
		case "memory":
			err = os.WriteFile(filepath.Join(dir, "memory.max"), []byte(strconv.FormatInt(lim.Memory, 10)), 0)
			if err == nil {
				os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0)
			}
		case "pids":
			err = os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(lim.Pids)), 0)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
	}
	return nil
}

// v1Parent is where v1 groups go: under the caller's own group of that
// controller, so sandboxes stay inside whatever limits the bridge has.
func v1Parent(controller string) string {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.SplitN(line, ":", 3)
			if len(f) == 3 && hasWord(strings.ReplaceAll(f[1], ",", " "), controller) {
				return filepath.Join(cgroupRoot, controller, f[2], "airlock")
			}
		}
	}
	return filepath.Join(cgroupRoot, controller, "airlock")
}

func (cg *Group) setupV1(id, c string, lim Limits) error {
	if _, err := os.Stat(filepath.Join(cgroupRoot, c, "cgroup.procs")); err != nil {
		return fmt.Errorf("no %s hierarchy", c)
	}
	dir := filepath.Join(v1Parent(c), id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cg.Dirs = append(cg.Dirs, dir)
	w := func(file, v string) error { return os.WriteFile(filepath.Join(dir, file), []byte(v), 0) }
	switch c {
	case "memory":
		return w("memory.limit_in_bytes", strconv.FormatInt(lim.Memory, 10))
	case "cpu":
		if err := w("cpu.cfs_period_us", "100000"); err != nil {
			return err
		}
		return w("cpu.cfs_quota_us", strconv.Itoa(lim.CPUs*100000))
	case "pids":
		return w("pids.max", strconv.Itoa(lim.Pids))
	}
	return fmt.Errorf("unknown controller %s", c)
}

// Place moves pid (the init, before it forks anything) into the groups.
func (cg *Group) Place(pid int) error {
	for _, d := range cg.Dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return err
		}
	}
	return nil
}

// Warm makes a Place that follows 5–30 ms later cheap. Moving a process
// between cgroups takes the kernel's cgroup_threadgroup_rwsem for writing,
// and the first writer after a quiet spell waits out an RCU grace period
// (4–20 ms on this machine, most of a namespace sandbox's start); a writer
// within about a grace period of the last one does not wait. Warm is that
// first writer, off the caller's path: from a goroutine it writes this
// process's pid into its own group of a hierarchy Setup uses (the rwsem is
// one for all; nothing moves), so the grace period passes while the caller
// works. Called too late, Place waits for the rest of Warm's grace period;
// too early, the window has closed again. The namespace backend calls it
// at create (10-20 ms before the first start's Place in mountless mode),
// before clone mode's baseline (~20 ms) and at start's cgroup setup
// (~8 ms); a later Warm inside the window keeps it open. A direct-mode
// start, whose workspace gate takes ~40 ms between the last two, still
// waits (~10 ms). Writing every few milliseconds instead kept Place at
// 0.2 ms but slowed every fork on the host (create 41 → 60 ms). A failed
// write (no permission, a v2 group with controllers of its children)
// waits all the same and changes nothing.
func Warm() {
	if procs := anyOwnProcsFile(); procs != "" {
		go os.WriteFile(procs, []byte(strconv.Itoa(os.Getpid())), 0)
	}
}

// anyOwnProcsFile is the cgroup.procs file of this process's own group in
// a hierarchy Setup uses, or "".
func anyOwnProcsFile() string {
	var dirs []string
	if _, err := v2Mount(); err == nil {
		dirs = append(dirs, cgroupRoot+"/airlock/x")
	}
	for _, c := range []string{"pids", "cpu", "memory"} {
		dirs = append(dirs, filepath.Join(cgroupRoot, c, "x"))
	}
	for _, d := range dirs {
		if f := ownProcsFile(d); f != "" {
			if _, err := os.Stat(f); err == nil {
				return f
			}
		}
	}
	return ""
}

// ownProcsFile is the cgroup.procs file of this process's own group in
// the hierarchy that dir belongs to, or "" when it cannot tell.
func ownProcsFile(dir string) string {
	rest, _ := strings.CutPrefix(dir, cgroupRoot+"/")
	ctrl, _, _ := strings.Cut(rest, "/")
	root, want := filepath.Join(cgroupRoot, ctrl), func(f []string) bool { return hasWord(strings.ReplaceAll(f[1], ",", " "), ctrl) }
	if ctrl == "airlock" || ctrl == "unified" { // a v2 group
		var err error
		if root, err = v2Mount(); err != nil {
			return ""
		}
		want = func(f []string) bool { return f[0] == "0" && f[1] == "" }
	}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.SplitN(line, ":", 3); len(f) == 3 && want(f) {
			return filepath.Join(root, f[2], "cgroup.procs")
		}
	}
	return ""
}

func (cg *Group) Remove() {
	for _, d := range cg.Dirs {
		os.Remove(d)
	}
}

// Name is unique per state dir: two $AIRLOCK_HOMEs may both have a
// sandbox "demo".
func Name(id, stateDir string) string {
	sum := sha256.Sum256([]byte(stateDir))
	return id + "-" + hex.EncodeToString(sum[:4])
}

// File is the usual name of the file (in a state dir) that lists the
// groups of a running sandbox, so that a restarted bridge (perhaps in
// another group) removes the right ones.
const File = "cgroups"

// Save writes the group's directories to file.
func (cg *Group) Save(file string) error {
	if len(cg.Dirs) == 0 {
		return nil
	}
	// A new file renamed in: file's directory may belong to someone else
	// (a namespace sandbox's state directory is its root's).
	return fsx.ReplaceFile(file, []byte(strings.Join(cg.Dirs, "\n")+"\n"), 0o600)
}

// RemoveSaved removes the groups listed in file by Save (they are empty
// once their processes are gone) and the file.
func RemoveSaved(file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		return
	}
	for _, d := range strings.Fields(string(data)) {
		if strings.HasPrefix(d, cgroupRoot+"/") && strings.Contains(d, "/airlock/") {
			// A killed process stays in its group until its parent reaps
			// it (EBUSY meanwhile): wait a little for that.
			for i := 0; i < 100; i++ {
				if err := os.Remove(d); !errors.Is(err, syscall.EBUSY) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	os.Remove(file)
}

func hasWord(s, w string) bool {
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Split(bufio.ScanWords)
	for sc.Scan() {
		if sc.Text() == w {
			return true
		}
	}
	return false
}

// Without returns the group's v1 directories other than controller c's.
// A v2 directory is returned as it is: it holds every controller and
// cannot be joined without c (on such hosts a process that must not share
// c's limit needs a group of its own).
func (cg *Group) Without(c string) []string {
	var out []string
	for _, d := range cg.Dirs {
		rest, ok := strings.CutPrefix(d, cgroupRoot+"/")
		if ctrl, _, _ := strings.Cut(rest, "/"); ok && ctrl == c {
			continue
		}
		out = append(out, d)
	}
	return out
}

// Controllers reports the v1 controllers dirs name (by their hierarchy),
// and whether any of them is a v2 group.
func Controllers(dirs []string) (v1 []string, v2 bool) {
	for _, d := range dirs {
		rest, _ := strings.CutPrefix(d, cgroupRoot+"/")
		ctrl, _, _ := strings.Cut(rest, "/")
		switch ctrl {
		case "airlock", "unified":
			v2 = true
		default:
			v1 = append(v1, ctrl)
		}
	}
	return v1, v2
}
