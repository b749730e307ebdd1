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

// cgroups: limits for CPUs and memory. cgroup v2 is preferred (a group
// under /sys/fs/cgroup/airlock/ID with the cpu and memory controllers);
// hosts still on v1 for those controllers (this machine: a hybrid mount
// whose v2 part has neither) get v1 groups under memory/airlock/ID and
// cpu/airlock/ID. Where neither is writable the sandbox runs without limits
// and Status.Note says so.

const cgroupRoot = "/sys/fs/cgroup"

type cgroup struct {
	dirs []string // groups the init joins (one for v2; one per controller for v1)
}

// setupCgroup creates the groups for id with the limits set. It returns a
// group (possibly empty) and a note when limits were asked for but cannot
// be applied.
func setupCgroup(id string, cpus int, mem int64) (*cgroup, string) {
	cg := &cgroup{}
	if cpus <= 0 && mem <= 0 {
		return cg, ""
	}
	errV2 := cg.setupV2(id, cpus, mem)
	if errV2 == nil {
		return cg, ""
	}
	cg.remove()
	cg.dirs = nil
	errV1 := cg.setupV1(id, cpus, mem)
	if errV1 == nil {
		return cg, "cgroup v1 limits (no cgroup v2 cpu/memory controllers here)"
	}
	cg.remove()
	cg.dirs = nil
	return cg, fmt.Sprintf("no cpu/memory limits: cgroup v2: %v; cgroup v1: %v", errV2, errV1)
}

func v2Mount() (string, error) {
	for _, d := range []string{cgroupRoot, cgroupRoot + "/unified"} {
		if _, err := os.Stat(filepath.Join(d, "cgroup.controllers")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("no cgroup2 mount")
}

func (cg *cgroup) setupV2(id string, cpus int, mem int64) error {
	root, err := v2Mount()
	if err != nil {
		return err
	}
	ctrl, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
	if err != nil {
		return err
	}
	for _, c := range []string{"cpu", "memory"} {
		if !hasWord(string(ctrl), c) {
			return fmt.Errorf("controller %s not available", c)
		}
	}
	parent := filepath.Join(root, "airlock")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+cpu +memory"), 0); err != nil {
		return fmt.Errorf("enable controllers: %w", err)
	}
	if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+cpu +memory"), 0); err != nil {
		return fmt.Errorf("enable controllers: %w", err)
	}
	dir := filepath.Join(parent, id)
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return err
	}
	cg.dirs = append(cg.dirs, dir)
	if cpus > 0 {
		if err := os.WriteFile(filepath.Join(dir, "cpu.max"), fmt.Appendf(nil, "%d 100000", cpus*100000), 0); err != nil {
			return err
		}
	}
	if mem > 0 {
		if err := os.WriteFile(filepath.Join(dir, "memory.max"), []byte(strconv.FormatInt(mem, 10)), 0); err != nil {
			return err
		}
		os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0)
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

func (cg *cgroup) setupV1(id string, cpus int, mem int64) error {
	if mem > 0 {
		dir := filepath.Join(v1Parent("memory"), id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		cg.dirs = append(cg.dirs, dir)
		if err := os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), []byte(strconv.FormatInt(mem, 10)), 0); err != nil {
			return err
		}
	}
	if cpus > 0 {
		dir := filepath.Join(v1Parent("cpu"), id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		cg.dirs = append(cg.dirs, dir)
		if err := os.WriteFile(filepath.Join(dir, "cpu.cfs_period_us"), []byte("100000"), 0); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "cpu.cfs_quota_us"), []byte(strconv.Itoa(cpus*100000)), 0); err != nil {
			return err
		}
	}
	return nil
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
