package kubernetes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8s "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/k8stest"
)

// TestCLI drives the airlock binary a user types, built from this
// checkout, against the real test cluster: up (clone mode, a small git
// repository), exec and its exit codes, status (the NetworkPolicy's
// enforcement), review, apply, stop/start keeping home and workspace, and
// rm leaving nothing in the namespace.
func TestCLI(t *testing.T) {
	c := needCluster(t)
	work := t.TempDir()
	bin := cliBin(t)
	home := filepath.Join(work, "airlock-home")
	os.MkdirAll(home, 0o700)
	hcl := fmt.Sprintf("kubeconfig = %q\nnamespace = %q\nimage = %q\nstorage_class = %q\nnode_name = %q\n",
		c.Kubeconfig, k8stest.Namespace, testImageRef, k8stest.StorageClass, k8stest.NodeName)
	if err := os.WriteFile(filepath.Join(home, "kubernetes.hcl"), []byte(hcl), 0o600); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(work, "repo")
	os.MkdirAll(repo, 0o755)
	writeFiles(t, repo, map[string]string{
		"hello.txt":   "hello from the host\n",
		"src/main.go": "package main\n\nfunc main() {}\n",
		"sandbox.hcl": `sandbox "k8s-cli" {
  backend = "kubernetes"
  memory  = "256MiB"
  disk    = "1GiB"
  workspace {
    mode = "clone"
  }
}
`})
	env := append(os.Environ(), "AIRLOCK_HOME="+home, "HOME="+filepath.Join(work, "home"),
		"PATH="+bin+":"+os.Getenv("PATH"), "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x")
	os.MkdirAll(filepath.Join(work, "home"), 0o700)
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		prog := args[0]
		if prog == "airlock" {
			prog = filepath.Join(bin, "airlock")
		}
		cmd := exec.Command(prog, args[1:]...)
		cmd.Dir, cmd.Env = repo, env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		t0 := time.Now()
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", strings.Join(args, " "), err)
		}
		t.Logf("%s: exit %d in %v", strings.Join(args, " "), code, time.Since(t0).Round(time.Millisecond))
		if code != want {
			t.Fatalf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	cmd := exec.Command(filepath.Join(bin, "airlock"), "bridge", "-stop")
	cmd.Env = env
	t.Cleanup(func() { cmd.Run() })
	run(0, "git", "init", "-q")
	run(0, "git", "add", "-A")
	run(0, "git", "commit", "-qm", "init")

	out, _ := run(0, "airlock", "plan")
	mustContain(t, "plan", out, "cluster: "+c.Server+" (context ", "namespace "+k8stest.Namespace)
	t0 := time.Now()
	out, _ = run(0, "airlock", "up", "--yes", "--quiet")
	t.Logf("up (clone, first start, CLI to prompt): %v", time.Since(t0).Round(time.Millisecond))
	name := strings.TrimSpace(out)
	if name != "k8s-cli" {
		t.Fatalf("up printed %q", out)
	}

	out, _ = run(0, "airlock", "exec", name, "--", "cat", "hello.txt")
	mustContain(t, "exec cat", out, "hello from the host")
	_, errOut := run(3, "airlock", "exec", name, "--", "sh", "-c", "echo oops >&2; exit 3")
	mustContain(t, "exec exit 3", errOut, "oops")
	// What a user waits for per command (a number for the log, not a check).
	var ds []time.Duration
	for range 9 {
		t0 := time.Now()
		run(0, "airlock", "exec", name, "--", "true")
		ds = append(ds, time.Since(t0))
	}
	slices.Sort(ds)
	t.Logf("airlock exec NAME -- true, p50 of 9 (CLI, bridge, SSH over the port-forward): %v", ds[4].Round(time.Millisecond))
	out, _ = run(0, "airlock", "exec", name, "--", "sh", "-c", "id -un; pwd; test ! -e .git/hooks/pre-commit && echo nohooks")
	mustContain(t, "exec id", out, "agent\n/workspace\n")

	// status: where it runs and what the NetworkPolicy is worth here. The
	// verdict comes from the bridge's probe pod (and the disk's from a df
	// inside the sandbox's), started by the first status.
	var status string
	for i := 0; i < 360; i++ {
		status, _ = run(0, "airlock", "status", name)
		if !strings.Contains(status, "is being checked") {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("status:\n%s", status)
	mustContain(t, "status", status, "backend:      kubernetes", "pod "+k8stest.Namespace+"/airlock-"+name+" on node "+k8stest.NodeName,
		"deny-all NetworkPolicy airlock-"+name+": not enforced by this cluster's network plugin, which gives pods no interface but loopback",
		"limit pids:", "NOT enforced: a pod has no pids limit of its own",
		// The test cluster's claims are local volumes: a directory on the host's disk.
		"limit disk:   1GiB, NOT enforced: home and workspace are on a")

	// The agent's work comes back through review and apply.
	run(0, "airlock", "exec", name, "--", "sh", "-c", "echo changed by the agent >> hello.txt && echo new > added.txt && echo note > ~/note")
	out, _ = run(0, "airlock", "review", name)
	mustContain(t, "review", out, "hello.txt", "added.txt")
	out, _ = run(0, "airlock", "apply", name)
	mustContain(t, "apply", out, "created branch airlock/"+name)
	out, _ = run(0, "git", "show", "airlock/"+name+":hello.txt")
	mustContain(t, "applied branch", out, "hello from the host\nchanged by the agent\n")

	// stop deletes the pod; start makes a new one on the same claim.
	run(0, "airlock", "stop", name)
	cs := adminClient(t, c.Kubeconfig)
	if n := countObjects(t, cs, name); n["pods"] != 0 || n["claims"] != 1 {
		t.Fatalf("after stop: %v", n)
	}
	t0 = time.Now()
	run(0, "airlock", "start", name)
	t.Logf("start after stop: %v", time.Since(t0).Round(time.Millisecond))
	out, _ = run(0, "airlock", "exec", name, "--", "sh", "-c", "cat ~/note added.txt; tail -1 hello.txt")
	mustContain(t, "after start", out, "note\nnew\nchanged by the agent\n")

	// rm leaves nothing in the namespace (everything is applied, so no --force).
	run(0, "airlock", "rm", name)
	if n := countObjects(t, cs, name); n["pods"]+n["claims"]+n["policies"]+n["secrets"] != 0 {
		t.Fatalf("after rm: %v", n)
	}
	out, _ = run(0, "airlock", "ls")
	if strings.Contains(out, name) {
		t.Fatalf("ls after rm:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(home, "vm", "kubernetes", name)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("state dir left: %v", err)
	}
}

var cliBins struct {
	sync.Once
	dir string
	err error
}

// cliBin is a directory holding airlock and airlock-agent built from this
// checkout (once per run; removed by TestMain).
func cliBin(t *testing.T) string {
	t.Helper()
	needCluster(t) // builds the agent
	cliBins.Do(func() {
		if cliBins.dir, cliBins.err = os.MkdirTemp("", "airlock-k8s-bin-"); cliBins.err != nil {
			return
		}
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", cliBins.dir+"/airlock", "./cmd/airlock")
		cmd.Dir = "../.."
		if o, err := cmd.CombinedOutput(); err != nil {
			cliBins.err = fmt.Errorf("go build ./cmd/airlock: %v\n%s", err, o)
			return
		}
		cliBins.err = fsx.CopyFile(agentBin, cliBins.dir+"/airlock-agent", 0o755)
	})
	if cliBins.err != nil {
		t.Fatal(cliBins.err)
	}
	return cliBins.dir
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		p = filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mustContain(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Fatalf("%s: no %q in:\n%s", what, w, got)
		}
	}
}

func adminClient(t *testing.T, kubeconfig string) k8s.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := k8s.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// countObjects lists what the sandbox id has in the test namespace, by
// its label.
func countObjects(t *testing.T, cs k8s.Interface, id string) map[string]int {
	t.Helper()
	ctx := context.Background()
	ns := k8stest.Namespace
	sel := metav1.ListOptions{LabelSelector: labelSandbox + "=" + id}
	n := map[string]int{}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	n["pods"] = len(pods.Items)
	pvcs, err := cs.CoreV1().PersistentVolumeClaims(ns).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	n["claims"] = len(pvcs.Items)
	nps, err := cs.NetworkingV1().NetworkPolicies(ns).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	n["policies"] = len(nps.Items)
	secs, err := cs.CoreV1().Secrets(ns).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	n["secrets"] = len(secs.Items)
	return n
}
