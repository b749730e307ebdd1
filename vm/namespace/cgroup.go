//go:build linux

package namespace

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
)

// cgroups: limits for CPUs, memory and processes (the pids controller,
// which counts threads too). Each controller goes where this host has it:
// in the cgroup v2 hierarchy (one group /sys/fs/cgroup/airlock/ID for all
// the v2 controllers) or, on hosts still on v1 for it (this machine: a
// hybrid mount whose v2 part has none), in its own v1 group under
// CONTROLLER/airlock/ID. A controller found in neither leaves that limit
// unset and Status.Note says so.

const cgroupRoot = "/sys/fs/cgroup"

// DefaultPids is the pids limit when vm.Spec.Pids is 0.
const DefaultPids = 4096

type cgroup struct {
	dirs []string // groups the init joins (one for v2; one per controller for v1)
}

// cgLimits are the limits of one sandbox; 0 = none.
type cgLimits struct {
	cpus int
	mem  int64
	pids int
}

// controllers lists the controllers lim needs, in a fixed order.
func (lim cgLimits) controllers() []string {
	var cs []string
	if lim.cpus > 0 {
		cs = append(cs, "cpu")
	}
	if lim.mem > 0 {
		cs = append(cs, "memory")
	}
	if lim.pids > 0 {
		cs = append(cs, "pids")
	}
	return cs
}

// setupCgroup creates the groups for id with the limits set. It returns a
// group (possibly empty) and a note naming the limits it could not apply
// and the controllers it found only in cgroup v1.
func setupCgroup(id string, lim cgLimits) (*cgroup, string) {
	cg := &cgroup{}
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
			cg.remove()
			cg.dirs = nil
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

func (cg *cgroup) setupV2(root, id string, ctrls []string, lim cgLimits) error {
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
	cg.dirs = append(cg.dirs, dir)
	for _, c := range ctrls {
		var err error
		switch c {
		case "cpu":
			err = os.WriteFile(filepath.Join(dir, "cpu.max"), fmt.Appendf(nil, "%d 100000", lim.cpus*100000), 0)
		case "memory":
			err = os.WriteFile(filepath.Join(dir, "memory.max"), []byte(strconv.FormatInt(lim.mem, 10)), 0)
			if err == nil {
				os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0)
			}
		case "pids":
			err = os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(lim.pids)), 0)
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

func (cg *cgroup) setupV1(id, c string, lim cgLimits) error {
	if _, err := os.Stat(filepath.Join(cgroupRoot, c, "cgroup.procs")); err != nil {
		return fmt.Errorf("no %s hierarchy", c)
	}
	dir := filepath.Join(v1Parent(c), id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cg.dirs = append(cg.dirs, dir)
	w := func(file, v string) error { return os.WriteFile(filepath.Join(dir, file), []byte(v), 0) }
	switch c {
	case "memory":
		return w("memory.limit_in_bytes", strconv.FormatInt(lim.mem, 10))
	case "cpu":
		if err := w("cpu.cfs_period_us", "100000"); err != nil {
			return err
		}
		return w("cpu.cfs_quota_us", strconv.Itoa(lim.cpus*100000))
	case "pids":
		return w("pids.max", strconv.Itoa(lim.pids))
	}
	return fmt.Errorf("unknown controller %s", c)
}

// place moves pid (the init, before it forks anything) into the groups.
func (cg *cgroup) place(pid int) error {
	for _, d := range cg.dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return err
		}
	}
	return nil
}

func (cg *cgroup) remove() {
	for _, d := range cg.dirs {
		os.Remove(d)
	}
}

// cgroupName is unique per state dir: two $AIRLOCK_HOMEs may both have a
// sandbox "demo".
func cgroupName(id, stateDir string) string {
	sum := sha256.Sum256([]byte(stateDir))
	return id + "-" + hex.EncodeToString(sum[:4])
}

// cgroupFile in the state dir lists the groups of the running sandbox, so
// that a restarted bridge (perhaps in another group) removes the right ones.
const cgroupFile = "cgroups"

func (cg *cgroup) save(dir string) error {
	if len(cg.dirs) == 0 {
		return nil
	}
	return os.WriteFile(filepath.Join(dir, cgroupFile), []byte(strings.Join(cg.dirs, "\n")+"\n"), 0o600)
}

// removeCgroup removes the groups a stopped sandbox had (they are empty
// once its init is gone).
func removeCgroup(dir string) {
	data, err := os.ReadFile(filepath.Join(dir, cgroupFile))
	if err != nil {
		return
	}
	for _, d := range strings.Fields(string(data)) {
		if strings.HasPrefix(d, cgroupRoot+"/") && strings.Contains(d, "/airlock/") {
			os.Remove(d)
		}
	}
	os.Remove(filepath.Join(dir, cgroupFile))
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
