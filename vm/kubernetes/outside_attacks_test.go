package kubernetes

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/k8stest"
)

// attackDirs hold the kubernetes backend's outside-attack scripts, one
// directory per outside round; each README's table says which are
// defended.
var attackDirs = []string{"../../bridge/testdata/outside-attacks/k8s", "../../bridge/testdata/outside-attacks/k8s-round2"}

// TestOutsideAttacksK8s runs the outside-attack scripts against the
// suite's test cluster with this checkout's binaries. A script whose
// README row starts with "defended" must exit 0 (defended); the others
// are skipped with the README's reason (two of them flood the bridge with
// gigabytes), or run with AIRLOCK_K8S_ATTACKS=all to see where they stand
// (then a defended one is logged, a got-through one is not a failure).
// When a fix lands and its row says defended, the script is required from
// then on. 18 needs a second cluster: it runs when AIRLOCK_K8S_HCL2 names
// one's kubernetes.hcl. A script that runs python3 in the pod is skipped
// while the suite's image has no python3 (06, 07).
func TestOutsideAttacksK8s(t *testing.T) {
	c := needCluster(t)
	if _, err := exec.LookPath("kubectl"); err != nil {
		if os.Getenv("AIRLOCK_TEST_REQUIRE") == "1" {
			t.Fatal("the outside-attack scripts need kubectl on PATH")
		}
		t.Skip("the outside-attack scripts need kubectl on PATH")
	}
	bin := cliBin(t)
	hcl := filepath.Join(t.TempDir(), "kubernetes.hcl")
	conf := fmt.Sprintf("kubeconfig = %q\nnamespace = %q\nimage = %q\nstorage_class = %q\nnode_name = %q\n",
		c.Kubeconfig, k8stest.Namespace, testImageRef, k8stest.StorageClass, k8stest.NodeName)
	if err := os.WriteFile(hcl, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	all := os.Getenv("AIRLOCK_K8S_ATTACKS") == "all"
	t0 := time.Now()
	for _, dir := range attackDirs {
		rows, err := attackRows(filepath.Join(dir, "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		scripts, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9]-*.sh"))
		if len(scripts) == 0 {
			t.Fatalf("no scripts in %s", dir)
		}
		for _, s := range scripts {
			name := filepath.Base(dir) + "/" + strings.TrimSuffix(filepath.Base(s), ".sh")
			t.Run(name, func(t *testing.T) { runAttackRow(t, name, rows[path.Base(name)], all, s, bin, hcl) })
		}
	}
	t.Logf("outside attacks: %v in all", time.Since(t0).Round(time.Second))
}

// runAttackRow runs one script as its README row (row, "" = none) says.
func runAttackRow(t *testing.T, name, row string, all bool, script, bin, hcl string) {
	if row == "" {
		t.Fatalf("%s has no row in the README's table", name)
	}
	defended := strings.HasPrefix(row, "defended")
	if !defended && !all {
		t.Skipf("not defended yet (README: %s); AIRLOCK_K8S_ATTACKS=all runs it", row)
	}
	if strings.HasPrefix(name, "k8s/18-") && os.Getenv("AIRLOCK_K8S_HCL2") == "" {
		t.Skip("needs a second cluster: AIRLOCK_K8S_HCL2 names its kubernetes.hcl")
	}
	if podPython[name] && !slices.Contains(testImageOptions.Packages, "python3") {
		t.Skip("runs python3 in the pod; the suite's image (testImageOptions) has none")
	}
	code, out, d := runAttack(t, script, bin, hcl)
	t.Logf("%s: exit %d in %v", name, code, d.Round(time.Millisecond))
	switch {
	case defended && code != 0:
		t.Errorf("%s: exit %d, want 0 (the README says defended)\n%s", name, code, out)
	case !defended && code == 0:
		t.Logf("%s is defended now: set its README row to \"defended (fixed in <commit>)\" so it stays required", name)
	case !defended:
		t.Logf("%s: still exit %d (README: %s)\n%s", name, code, row, out)
	}
}

// TestAttackRows: every script has a row in the README's table (no
// cluster needed), so TestOutsideAttacksK8s knows whether it is required.
func TestAttackRows(t *testing.T) {
	for _, dir := range attackDirs {
		rows, err := attackRows(filepath.Join(dir, "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		scripts, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9]-*.sh"))
		for _, s := range scripts {
			if _, ok := rows[strings.TrimSuffix(filepath.Base(s), ".sh")]; !ok {
				t.Errorf("%s/%s: no row in the README's table", filepath.Base(dir), filepath.Base(s))
			}
		}
		if len(scripts) < 14 || len(rows) != len(scripts) {
			t.Errorf("%s: %d scripts, %d rows", dir, len(scripts), len(rows))
		}
	}
	rows, _ := attackRows(filepath.Join(attackDirs[0], "README.md"))
	if !strings.HasPrefix(rows["11-clone-push-leaks-host-secrets"], "defended") {
		t.Errorf("row 11 = %q", rows["11-clone-push-leaks-host-secrets"])
	}
}

// podPython: the scripts that run python3 inside the pod (the others that
// use it run it on the host).
var podPython = map[string]bool{"k8s/06-pod-network-reach": true, "k8s/07-template-save-hostile-tar": true}

// runAttack runs one script (its own process group, killed after 6
// minutes) and returns its exit code, output and time.
func runAttack(t *testing.T, script, bin, hcl string) (int, string, time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Env = append(os.Environ(), "AIRLOCK_BIN="+bin, "AIRLOCK_K8S_HCL="+hcl)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	if ctx.Err() != nil {
		t.Errorf("%s: killed after 6 minutes", script)
	}
	return code, out.String(), time.Since(t0)
}

// attackRows reads the README's table: script name -> result column.
func attackRows(readme string) (map[string]string, error) {
	f, err := os.Open(readme)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) >= 4 && len(strings.TrimSpace(cells[1])) > 3 && strings.TrimSpace(cells[1])[2] == '-' {
			rows[strings.TrimSpace(cells[1])] = strings.TrimSpace(cells[2])
		}
	}
	return rows, sc.Err()
}
