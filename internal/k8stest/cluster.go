package k8stest

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// NodeName is the test cluster's one node.
const NodeName = "airlock-node"

// Namespace is where the test cluster's sandboxes go (created at Start).
const Namespace = "airlock"

// StorageClass is the test cluster's class of pre-made local volumes.
const StorageClass = "airlock-local"

// Options configure Start.
type Options struct {
	Dir      string    // data directory (created; Stop removes it). Required.
	Cache    string    // binaries cache (default CacheDir())
	Progress io.Writer // progress lines (nil: none)
	// Volumes is how many local PersistentVolumes are made for sandboxes'
	// claims (default 128): the cluster runs no dynamic provisioner.
	Volumes int
	// Images are OCI/Docker archives imported into containerd before
	// kubelet starts (the sandbox image).
	Images []string
}

// Cluster is a running test cluster.
type Cluster struct {
	Dir        string
	Kubeconfig string // admin kubeconfig (system:masters)
	Server     string // https://127.0.0.1:PORT
	StartTime  time.Duration
}

// Start runs etcd, kube-apiserver, kube-controller-manager, containerd
// and kubelet on loopback with every file under o.Dir, and returns once
// the node is Ready, the namespace and storage exist. It builds the
// binaries first when they are not cached (EnsureBinaries).
func Start(ctx context.Context, o Options) (c *Cluster, err error) {
	if err := checkHost(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	bin, err := EnsureBinaries(ctx, o.Cache, o.Progress)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	dir, err := clusterDir(o.Dir)
	if err != nil {
		return nil, err
	}
	cl := &Cluster{Dir: dir, Kubeconfig: filepath.Join(dir, "admin.kubeconfig")}
	c = cl
	defer func() {
		if err != nil {
			if logs := cl.logTails(); logs != "" {
				err = fmt.Errorf("%w\n%s", err, logs)
			}
			cl.Stop()
			c = nil
		}
	}()
	cgroupRoot, err := c.prepareDir(bin)
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(5)
	if err != nil {
		return nil, err
	}
	etcdPort, peerPort, apiPort, kubeletPort := ports[0], ports[1], ports[2], ports[3]
	c.Server = fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	nodeIP, err := hostIP()
	if err != nil {
		return nil, err
	}
	p, err := c.writePKI(nodeIP)
	if err != nil {
		return nil, err
	}
	if err := c.startEtcd(o.Progress, etcdPort, peerPort); err != nil {
		return nil, err
	}
	if err := c.startAPIServer(ctx, o.Progress, bin, p, etcdPort, apiPort); err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Progress, "kube-apiserver ready after %v\n", time.Since(start).Round(time.Millisecond))
	if err := c.startControllerManager(bin, p); err != nil {
		return nil, err
	}
	if err := c.startNode(ctx, o, cgroupRoot, kubeletPort, nodeIP); err != nil {
		return nil, err
	}
	if err := c.setup(ctx, p, o.Volumes); err != nil {
		return nil, err
	}
	c.StartTime = time.Since(start)
	fmt.Fprintf(o.Progress, "cluster ready in %v (kubeconfig %s)\n", c.StartTime.Round(time.Millisecond), c.Kubeconfig)
	return c, nil
}

// checkHost: the cluster runs as root with the host's tools.
func checkHost() error {
	if os.Geteuid() != 0 {
		return errNotRoot
	}
	for _, tool := range []string{"etcd", "containerd", "containerd-shim-runc-v2", "runc", "ctr", "unshare", "nsenter", "ip", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("test cluster: %s not found (apt-get install etcd-server containerd runc util-linux iproute2)", tool)
		}
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Cache == "" {
		o.Cache = CacheDir()
	}
	if o.Volumes == 0 {
		o.Volumes = 128
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return o
}

// clusterDir makes the cluster's directory (absolute), refusing the ones
// the node hides under a private tmpfs.
func clusterDir(d string) (string, error) {
	dir, err := filepath.Abs(d)
	if err != nil {
		return "", err
	}
	for _, hidden := range []string{"/run", "/var/run", "/var/log", "/var/lib"} {
		if dir == hidden || strings.HasPrefix(dir, hidden+"/") {
			return "", fmt.Errorf("test cluster dir %s: not under %s (the node mounts a private tmpfs there)", dir, hidden)
		}
	}
	return dir, os.MkdirAll(dir, 0o700)
}

// prepareDir names the node's cgroup root (random, written to
// cgroup-root) and links the binaries as bin.
func (c *Cluster) prepareDir(bin string) (string, error) {
	id := make([]byte, 4)
	rand.Read(id)
	cgroupRoot := "airlock-k8s-" + hex.EncodeToString(id)
	if err := os.WriteFile(filepath.Join(c.Dir, "cgroup-root"), []byte(cgroupRoot+"\n"), 0o644); err != nil {
		return "", err
	}
	return cgroupRoot, os.Symlink(bin, filepath.Join(c.Dir, "bin"))
}

// writePKI makes the cluster's CA, the components' certificates and the
// service account key, and a kubeconfig for admin, the controller manager
// and the kubelet.
func (c *Cluster) writePKI(nodeIP net.IP) (*pki, error) {
	p, err := newPKI(filepath.Join(c.Dir, "pki"))
	if err != nil {
		return nil, err
	}
	for _, cert := range [][]string{
		{"apiserver", "kube-apiserver"},
		{"admin", "airlock-test-admin", "system:masters"},
		{"apiserver-kubelet-client", "kube-apiserver-kubelet-client", "system:masters"},
		{"controller-manager", "system:kube-controller-manager", "system:masters"},
		{"kubelet", "system:node:" + NodeName, "system:nodes"},
	} {
		if err := p.issue(cert[0], cert[1], []net.IP{nodeIP}, cert[2:]...); err != nil {
			return nil, err
		}
	}
	if err := p.serviceAccountKey(); err != nil {
		return nil, err
	}
	for _, kc := range [][2]string{{"admin", "admin"}, {"controller-manager", "controller-manager"}, {"kubelet", "kubelet"}} {
		if err := writeKubeconfig(filepath.Join(c.Dir, kc[0]+".kubeconfig"), c.Server, p, kc[1]); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (c *Cluster) startEtcd(progress io.Writer, port, peerPort int) error {
	fmt.Fprintf(progress, "etcd on 127.0.0.1:%d\n", port)
	return c.daemon("etcd", nil, "etcd", "--name", "airlock", "--data-dir", filepath.Join(c.Dir, "etcd"),
		"--listen-client-urls", fmt.Sprintf("http://127.0.0.1:%d", port),
		"--advertise-client-urls", fmt.Sprintf("http://127.0.0.1:%d", port),
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peerPort),
		"--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peerPort),
		"--initial-cluster", fmt.Sprintf("airlock=http://127.0.0.1:%d", peerPort),
		"--listen-metrics-urls", "", "--log-level", "warn")
}

// startAPIServer starts kube-apiserver and waits until it is ready.
func (c *Cluster) startAPIServer(ctx context.Context, progress io.Writer, bin string, p *pki, etcdPort, port int) error {
	pk := func(n string) string { return p.path(n) }
	fmt.Fprintf(progress, "kube-apiserver on %s\n", c.Server)
	if err := c.daemon("kube-apiserver", nil, filepath.Join(bin, "kube-apiserver"),
		"--etcd-servers", fmt.Sprintf("http://127.0.0.1:%d", etcdPort),
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", strconv.Itoa(port),
		"--endpoint-reconciler-type", "none", // a loopback address cannot be the kubernetes Service's endpoint
		"--cert-dir", filepath.Join(c.Dir, "apiserver-certs"),
		"--tls-cert-file", pk("apiserver.crt"), "--tls-private-key-file", pk("apiserver.key"),
		"--client-ca-file", pk("ca.crt"),
		"--kubelet-client-certificate", pk("apiserver-kubelet-client.crt"), "--kubelet-client-key", pk("apiserver-kubelet-client.key"),
		"--kubelet-certificate-authority", pk("ca.crt"), "--kubelet-preferred-address-types", "InternalIP",
		"--service-account-key-file", pk("sa.pub"), "--service-account-signing-key-file", pk("sa.key"),
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-cluster-ip-range", "10.0.0.0/24",
		"--authorization-mode", "Node,RBAC",
		"--enable-admission-plugins", "NodeRestriction",
		"--allow-privileged=false",
		"--profiling=false", "--v=1"); err != nil {
		return err
	}
	if err := waitHealthy(ctx, c.Server+"/readyz", p, 90*time.Second); err != nil {
		return fmt.Errorf("kube-apiserver: %w", err)
	}
	return nil
}

func (c *Cluster) startControllerManager(bin string, p *pki) error {
	return c.daemon("kube-controller-manager", nil, filepath.Join(bin, "kube-controller-manager"),
		"--kubeconfig", filepath.Join(c.Dir, "controller-manager.kubeconfig"),
		"--secure-port", "0", "--leader-elect=false",
		"--service-account-private-key-file", p.path("sa.key"), "--root-ca-file", p.path("ca.crt"),
		"--use-service-account-credentials=false",
		"--profiling=false", "--v=1")
}

// startNode writes the node's files, the pause image and the images to
// import, and starts containerd and kubelet in a private mount namespace
// (node.sh).
func (c *Cluster) startNode(ctx context.Context, o Options, cgroupRoot string, kubeletPort int, nodeIP net.IP) error {
	if err := writeNode(c.Dir, cgroupRoot, kubeletPort, nodeIP.String()); err != nil {
		return err
	}
	if err := buildPause(ctx, o.Cache, filepath.Join(c.Dir, "pause.tar")); err != nil {
		return err
	}
	for i, img := range o.Images {
		if err := os.Symlink(img, filepath.Join(c.Dir, "images", fmt.Sprintf("%02d.tar", i))); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.Progress, "node %s: containerd + kubelet in a private mount namespace\n", NodeName)
	return c.daemon("node", nil, "unshare", "--mount", "--propagation", "private", "--fork", "--",
		"sh", filepath.Join(c.Dir, "node.sh"))
}

// daemon starts a long-running program in a session of its own, its
// output to DIR/NAME.log and its pid to DIR/NAME.pid.
func (c *Cluster) daemon(name string, env []string, prog string, args ...string) error {
	log, err := os.Create(filepath.Join(c.Dir, name+".out"))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(prog, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = c.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	go cmd.Wait() // reap when we are the parent; the pid file is for Stop
	return os.WriteFile(filepath.Join(c.Dir, name+".pid"), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
}

// logTails returns the last lines of every log, for a failed Start.
func (c *Cluster) logTails() string {
	var b strings.Builder
	for _, n := range []string{"etcd.out", "kube-apiserver.out", "kube-controller-manager.out", "node.out", "containerd.log", "kubelet.log"} {
		data, err := os.ReadFile(filepath.Join(c.Dir, n))
		if err != nil || len(data) == 0 {
			continue
		}
		fmt.Fprintf(&b, "--- %s (tail)\n%s\n", n, tail(data, 1500))
	}
	return b.String()
}

// hostIP is the node's address: kubelet refuses loopback ones.
func hostIP() (net.IP, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	for _, i := range ifs {
		if i.Flags&net.FlagUp == 0 || i.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := i.Addrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsGlobalUnicast() {
				return n.IP.To4(), nil
			}
		}
	}
	return nil, fmt.Errorf("test cluster: no global IPv4 address on this host for the node (kubelet refuses loopback)")
}

func freePorts(n int) ([]int, error) {
	var out []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

func adminTLS(p *pki) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(p.path("admin.crt"), p.path("admin.key"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(p.caCert)
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}, nil
}

func waitHealthy(ctx context.Context, url string, p *pki, timeout time.Duration) error {
	tc, err := adminTLS(p)
	if err != nil {
		return err
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}, Timeout: 5 * time.Second}
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		resp, err := hc.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, tail(body, 300))
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("not healthy after %v: %s", timeout, last)
}

func writeKubeconfig(path, server string, p *pki, user string) error {
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: airlock-test
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: %s
  user:
    client-certificate: %s
    client-key: %s
contexts:
- name: airlock-test
  context: {cluster: airlock-test, user: %s}
current-context: airlock-test
`, server, p.path("ca.crt"), user, p.path(user+".crt"), p.path(user+".key"), user)
	return os.WriteFile(path, []byte(kc), 0o600)
}

var errStopped = errors.New("cluster stopped")
