package kubernetes

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/crypto/ssh"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	k8s "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/vm"
)

// Open is the vm.Factory cmd/airlock registers as "kubernetes": a backend
// rooted at root ($AIRLOCK_HOME/vm/kubernetes) that reads the cluster from
// $AIRLOCK_HOME/kubernetes.hcl when first used.
func Open(root string) (vm.Backend, error) {
	return &Backend{root: root, home: homeOf(root)}, nil
}

var _ vm.Backend = (*Backend)(nil)

const (
	// StartTimeout is what Start waits for by default when its context has
	// no deadline (image pulls on a cold node take a while).
	StartTimeout = 3 * time.Minute
)

// Backend runs each sandbox as a Pod in the namespace kubernetes.hcl names.
type Backend struct {
	root string
	home string // $AIRLOCK_HOME, where kubernetes.hcl is read from

	initMu   sync.Mutex // held while connecting; a failure is retried at the next call
	set      *config.KubernetesSettings
	cfg      *rest.Config
	context  string // the kubeconfig context in use ("" = given a REST config)
	cs       k8s.Interface
	progress io.Writer

	probeMu   sync.Mutex           // guards probes and probeErrs
	probes    map[string]*probeRun // network policy probes running, by sandbox
	probeErrs map[string]string    // a sandbox's last failed probe
}

// New returns a backend rooted at root using the given settings and
// REST config (tests; Open reads kubernetes.hcl).
func New(root string, set *config.KubernetesSettings, cfg *rest.Config) (*Backend, error) {
	b := &Backend{root: root, set: set, cfg: cfg}
	return b, b.connect()
}

// homeOf: the bridge roots each backend at $AIRLOCK_HOME/vm/NAME.
func homeOf(root string) string {
	parent := filepath.Dir(root)
	if filepath.Base(parent) == "vm" {
		return filepath.Dir(parent)
	}
	return parent
}

// SetProgress sends progress lines (pod events while starting) to w.
func (b *Backend) SetProgress(w io.Writer) { b.progress = w }

func (b *Backend) init() error {
	// Not a sync.Once: a kubernetes.hcl written or fixed after the bridge
	// first looked is read at the next call, without a bridge restart.
	b.initMu.Lock()
	defer b.initMu.Unlock()
	if b.cs != nil {
		return nil
	}
	if b.home != "" {
		set, diags := config.LoadKubernetes(b.home)
		if diags.HasErrors() {
			return fmt.Errorf("%s: %w", allErrors(diags), vm.ErrUnavailable)
		}
		b.set, b.cfg = set, nil
	}
	return b.connect()
}

// allErrors is every error of diags on one line, each file:line,col
// first, separated by "; ".
func allErrors(diags hcl.Diagnostics) string {
	var out []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if d.Subject != nil {
			out = append(out, fmt.Sprintf("%s:%d,%d: %s: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, d.Detail))
		} else {
			out = append(out, d.Summary+": "+d.Detail)
		}
	}
	if len(out) == 0 {
		return diags.Error()
	}
	return strings.Join(out, "; ")
}

func (b *Backend) connect() error {
	if b.cfg == nil {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		if b.set.Kubeconfig != "" {
			rules.ExplicitPath = b.set.Kubeconfig
		}
		cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
			&clientcmd.ConfigOverrides{CurrentContext: b.set.Context})
		cfg, err := cc.ClientConfig()
		if err != nil {
			return fmt.Errorf("kubeconfig: %v: %w", err, vm.ErrUnavailable)
		}
		b.cfg, b.context = cfg, b.set.Context
		if raw, err := cc.RawConfig(); err == nil && b.context == "" {
			b.context = raw.CurrentContext
		}
	}
	b.cfg.UserAgent = "airlock"
	// client-go's default (5 requests/s, bursts of 10) makes 30 sandboxes
	// starting at once wait on the client, not the cluster. One bridge is
	// one person; the API server's priority and fairness still applies.
	if b.cfg.QPS == 0 {
		b.cfg.QPS, b.cfg.Burst = 50, 100
	}
	cs, err := k8s.NewForConfig(b.cfg)
	if err != nil {
		return fmt.Errorf("kubernetes client: %v: %w", err, vm.ErrUnavailable)
	}
	b.cs = cs
	return nil
}

// Name is the registry name.
func (b *Backend) Name() string { return "kubernetes" }

// Available checks the settings and that the namespace is reachable.
func (b *Backend) Available(ctx context.Context) error {
	if err := b.init(); err != nil {
		return err
	}
	if _, err := b.cs.CoreV1().Pods(b.set.Namespace).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return fmt.Errorf("cluster %s, namespace %s: %v: %w", b.cfg.Host, b.set.Namespace, err, vm.ErrUnavailable)
	}
	return nil
}

// Plan is what `airlock plan` shows about where sandboxes go.
func (b *Backend) Plan() (cluster, namespace, runtimeClass string, err error) {
	if err := b.init(); err != nil {
		return "", "", "", err
	}
	return b.cfg.Host, b.set.Namespace, b.set.RuntimeClass, nil
}

// Placement is where sandboxes go, for the plan: API server, kubeconfig
// context, namespace and runtime class, from kubernetes.hcl and the
// kubeconfig it names (no request to the cluster).
func (b *Backend) Placement() (config.ClusterPlan, error) {
	if err := b.init(); err != nil {
		return config.ClusterPlan{}, err
	}
	return config.ClusterPlan{Server: b.cfg.Host, Context: b.context, Namespace: b.set.Namespace, RuntimeClass: b.set.RuntimeClass, Image: b.set.Image}, nil
}

// state is what the backend keeps on the host per sandbox (state.json in
// its state dir): enough for a restarted bridge to find the sandbox.
type state struct {
	ID              string
	Namespace       string
	Server          string // the API server it was made on ("" = before this was kept)
	Context         string // the kubeconfig context it was made with
	Owner           string // labelOwner of its objects ("" = made before owners: objects without the label)
	Image           string
	CPUs            int
	MemoryBytes     int64
	DiskBytes       int64
	Env             map[string]string
	WorkspaceTarget string
	WorkspaceMode   vm.WorkspaceMode
	WorkspaceSource string               // host folder pushed at first start (clone mode)
	Hide            []string             // globs left out of the push
	HostPub         string               // the guest sshd's public key (authorized_keys line), pinned by pushes
	Pushed          bool                 // the workspace is on the claim
	Started         bool                 // started at least once (created vs stopped)
	Ran             bool                 // the agent ran at least once (the claim may hold the agent's files)
	Mounts          []corev1.VolumeMount // read-only mounts and /etc files (from the Secret)
	Volumes         []corev1.Volume
}

// idRE: a sandbox name is a DNS-1123 label, so airlock-ID (at most 71
// characters) is an object name and ID a label value and hostname.
var idRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`) })

func (b *Backend) dir(id string) string { return filepath.Join(b.root, id) }

func (b *Backend) load(id string) (*state, error) {
	if !idRE().MatchString(id) {
		return nil, fmt.Errorf("sandbox %q: %w", id, vm.ErrNotFound)
	}
	data, err := os.ReadFile(filepath.Join(b.dir(id), "state.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("sandbox %s: %w", id, vm.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("sandbox %s: state: %w", id, err)
	}
	return &st, nil
}

func (b *Backend) save(st *state) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomic(filepath.Join(b.dir(st.ID), "state.json"), data, 0o600)
}

// Create makes the sandbox's Secret, claim and NetworkPolicy; the pod is
// made by Start.
func (b *Backend) Create(ctx context.Context, spec vm.Spec) (err error) {
	if err := b.init(); err != nil {
		return err
	}
	if err := b.checkSpec(spec); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(b.dir(spec.ID), "state.json")); err == nil {
		return fmt.Errorf("sandbox %s: %w", spec.ID, vm.ErrExists)
	}
	ns := b.set.Namespace
	if _, err := b.cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, objName(spec.ID), metav1.GetOptions{}); err == nil {
		return b.takenErr(spec.ID, "claim")
	}
	st, err := b.newState(spec)
	if err != nil {
		return err
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	sshPub, _ := ssh.NewPublicKey(pub)
	blk, err := ssh.MarshalPrivateKey(priv, "airlock kubernetes provisioning")
	if err != nil {
		return err
	}
	data, mounts, vols, err := secretData(spec, ssh.MarshalAuthorizedKey(sshPub))
	if err != nil {
		return err
	}
	st.Mounts, st.Volumes = mounts, vols
	dir := b.dir(spec.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			b.deleteObjects(context.WithoutCancel(ctx), st) // only what this Create made (st.Owner)
			os.RemoveAll(dir)
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, "provision_key"), pem.EncodeToMemory(blk), 0o600); err != nil {
		return err
	}
	// The state (with the owner) goes first: a bridge killed while the
	// objects are made leaves a state rm finds them by.
	if err := b.save(st); err != nil {
		return err
	}
	meta := metav1.ObjectMeta{Name: objName(spec.ID), Namespace: ns, Labels: labels(st)}
	if _, err := b.cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: meta, Data: data}, metav1.CreateOptions{}); err != nil {
		return b.createErr(spec.ID, "secret", err)
	}
	if _, err := b.cs.CoreV1().PersistentVolumeClaims(ns).Create(ctx, b.claim(ns, st), metav1.CreateOptions{}); err != nil {
		return b.createErr(spec.ID, "claim", err)
	}
	if _, err := b.cs.NetworkingV1().NetworkPolicies(ns).Create(ctx, networkPolicy(ns, st), metav1.CreateOptions{}); err != nil {
		return b.createErr(spec.ID, "network policy", err)
	}
	return nil
}

// checkSpec refuses an incomplete spec and what this backend cannot run:
// a bad ID or state directory, direct mode, Docker, a target on the pod's
// own mounts.
func (b *Backend) checkSpec(spec vm.Spec) error {
	if err := spec.CheckComplete(); err != nil {
		return err
	}
	if !idRE().MatchString(spec.ID) {
		return fmt.Errorf("sandbox id %q: %w", spec.ID, vm.ErrInvalidSpec)
	}
	if spec.StateDir != "" && filepath.Clean(spec.StateDir) != b.dir(spec.ID) {
		return fmt.Errorf("state dir %s: want %s: %w", spec.StateDir, b.dir(spec.ID), vm.ErrInvalidSpec)
	}
	switch spec.Workspace.Mode {
	case vm.ModeDirect:
		return fmt.Errorf("workspace mode direct: a pod runs on a cluster node, which cannot share this machine's folder live; use clone (pushed over SSH at first start) or mountless: %w", vm.ErrInvalidSpec)
	case vm.ModeClone, vm.ModeMountless, "":
	default:
		return fmt.Errorf("workspace mode %q: %w", spec.Workspace.Mode, vm.ErrInvalidSpec)
	}
	if spec.Docker {
		return fmt.Errorf("docker: the kubernetes backend runs no Docker engine inside a pod: %w", vm.ErrInvalidSpec)
	}
	return checkTargets(spec)
}

// newState is the record of a sandbox made from spec (complete: checkSpec)
// and the guest's host key's public half.
func (b *Backend) newState(spec vm.Spec) (*state, error) {
	st := &state{
		ID: spec.ID, Namespace: b.set.Namespace, Server: b.cfg.Host, Context: b.context, Owner: newOwner(), Image: b.set.Image,
		CPUs: spec.CPUs, MemoryBytes: spec.MemoryBytes, DiskBytes: spec.DiskBytes,
		Env: spec.Env, WorkspaceTarget: spec.Workspace.Target, WorkspaceMode: spec.Workspace.Mode,
		Hide: spec.Workspace.Hide,
	}
	if spec.Workspace.Mode == vm.ModeClone {
		st.WorkspaceSource = spec.Workspace.HostPath
	}
	hostSigner, err := ssh.ParsePrivateKey(spec.HostKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("host key: %v: %w", err, vm.ErrInvalidSpec)
	}
	st.HostPub = string(ssh.MarshalAuthorizedKey(hostSigner.PublicKey()))
	return st, nil
}

// createErr is a failed create of the sandbox's kind object: one of the
// same name (another home's sandbox, or one a lost state left) is named as
// such; Create's cleanup then deletes only what it made itself.
func (b *Backend) createErr(id, kind string, err error) error {
	if apierrors.IsAlreadyExists(err) {
		return b.takenErr(id, kind)
	}
	return b.apiErr("create "+kind, err)
}

func (b *Backend) takenErr(id, kind string) error {
	return fmt.Errorf("sandbox %s: a %s named %s already exists in namespace %s on %s, made by another airlock home (or left by a sandbox this home no longer knows); it was left alone: pick another sandbox name, or remove it where it was made: %w",
		id, kind, objName(id), b.set.Namespace, b.cfg.Host, vm.ErrExists)
}

func (b *Backend) apiErr(what string, err error) error {
	if apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("%s: %v: %w", what, err, vm.ErrExists)
	}
	return fmt.Errorf("%s in namespace %s: %w", what, b.set.Namespace, err)
}

// Stop deletes the pod; the claim keeps home and workspace.
func (b *Backend) Stop(ctx context.Context, id string) error {
	if err := b.init(); err != nil {
		return err
	}
	st, err := b.load(id)
	if err != nil {
		return err
	}
	c, err := b.at(st)
	if err != nil {
		return err
	}
	b.probeWait(id)
	if err := c.deleteProbePod(ctx, st); err != nil && !errors.Is(err, errNotOwned) {
		return err // a probe pod left by a bridge stopped while it ran
	}
	if _, err = c.deletePod(ctx, st); errors.Is(err, errNotOwned) {
		return nil // another's pod of the name: this sandbox runs none
	}
	return err
}

// Remove deletes pod, claim, Secret and NetworkPolicy, and the state dir.
func (b *Backend) Remove(ctx context.Context, id string) error {
	if err := b.init(); err != nil {
		return err
	}
	st, err := b.load(id)
	if err != nil {
		return err
	}
	c, err := b.at(st)
	if err != nil {
		return err
	}
	b.probeWait(id)
	if _, err := c.deletePod(ctx, st); err != nil && !errors.Is(err, errNotOwned) {
		return err
	}
	wipeErr := c.wipeClaim(ctx, st)
	if err := c.deleteObjects(ctx, st); err != nil {
		return err
	}
	if err := os.RemoveAll(b.dir(id)); err != nil {
		return err
	}
	if wipeErr != nil { // said after deleting: a failed wipe must not leave objects nobody knows
		return fmt.Errorf("sandbox %s: removed, but its claim could not be emptied first (%v): a storage class that retains volumes keeps home and workspace on the node", id, wipeErr)
	}
	return nil
}

// deleteObjects deletes everything the sandbox owns in its namespace (by
// owner label and UID: owner.go) and waits until the pod and claim are
// gone. Objects of its name that someone else made are left alone and not
// an error: this sandbox has none there.
func (b *Backend) deleteObjects(ctx context.Context, st *state) error {
	var errs []error
	keep := func(_ types.UID, err error) {
		if err != nil && !errors.Is(err, errNotOwned) {
			errs = append(errs, err)
		}
	}
	keep(b.deletePod(ctx, st))
	keep("", b.deleteProbePod(ctx, st))
	_, policy, secret, claim := b.kinds(st.Namespace)
	name := objName(st.ID)
	keep(deleteOwned(ctx, policy, name, st.Owner))
	keep(deleteOwned(ctx, secret, name, st.Owner))
	uid, err := deleteOwned(ctx, claim, name, st.Owner)
	keep(uid, err)
	if err := errors.Join(errs...); err != nil || uid == "" {
		return err
	}
	return waitGone(ctx, goneOrReplaced(ctx, claim, name, uid))
}

// deletePod deletes the sandbox's pod (if it has one: owner.go) and waits
// until it is gone.
func (b *Backend) deletePod(ctx context.Context, st *state) (types.UID, error) {
	pod, _, _, _ := b.kinds(st.Namespace)
	uid, err := deleteOwned(ctx, pod, objName(st.ID), st.Owner)
	if err != nil || uid == "" {
		return uid, err
	}
	return uid, waitGone(ctx, goneOrReplaced(ctx, pod, objName(st.ID), uid))
}

// waitGone polls get until it reports NotFound.
func waitGone(ctx context.Context, get func() error) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
	}
	for wait := 50 * time.Millisecond; ; wait = min(wait*3/2, 500*time.Millisecond) {
		err := get()
		if apierrors.IsNotFound(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for deletion: %w (last: %v)", ctx.Err(), err)
		case <-time.After(wait):
		}
	}
}

// Status reads the pod. The pid is the agent's host pid when the pod runs
// on this machine (a local test cluster), else 0.
func (b *Backend) Status(ctx context.Context, id string) (vm.Status, error) {
	if err := b.init(); err != nil {
		return vm.Status{}, err
	}
	st, err := b.load(id)
	if err != nil {
		return vm.Status{}, err
	}
	c, err := b.at(st)
	if err != nil {
		return vm.Status{}, err
	}
	pod, err := c.ownPod(ctx, st)
	if errors.Is(err, errNotOwned) || apierrors.IsNotFound(err) {
		state := vm.StateCreated
		if st.Started {
			state = vm.StateStopped
		}
		return vm.Status{State: state, Note: b.notRunningNotes(st, err)}, nil
	}
	if err != nil {
		return vm.Status{}, err
	}
	cid, running := agentRunning(pod)
	if !running || pod.DeletionTimestamp != nil {
		return vm.Status{State: vm.StateStopped, Note: podNote(pod) + "; " + b.notRunningNotes(st, nil)}, nil
	}
	notes := append([]string{fmt.Sprintf("pod %s/%s on node %s", st.Namespace, pod.Name, pod.Spec.NodeName)},
		c.probeNotes(st, pod)...)
	s := vm.Status{State: vm.StateRunning, Note: strings.Join(append(notes, pidsNote), "; ")}
	if pid := localPID(cid); pid > 0 {
		s.PID = pid
		s.MemoryBytes = rssBytes(pid)
	}
	return s, nil
}

// pidsNote: the Pod API has no per-pod pids field (in the form status
// reads as a limit not enforced).
const pidsNote = "no pids limit (a pod has no pids limit of its own: the node's podPidsLimit applies)"

// Dial opens a byte stream to the sandbox's sshd through the API server's
// port-forward.
func (b *Backend) Dial(ctx context.Context, id string) (net.Conn, error) {
	if err := b.init(); err != nil {
		return nil, err
	}
	st, err := b.load(id)
	if err != nil {
		return nil, err
	}
	c, err := b.at(st)
	if err != nil {
		return nil, err
	}
	pod, err := c.ownPod(ctx, st)
	if apierrors.IsNotFound(err) || errors.Is(err, errNotOwned) {
		return nil, fmt.Errorf("sandbox %s: %w", id, vm.ErrNotRunning)
	}
	if err != nil {
		return nil, err
	}
	if _, running := agentRunning(pod); !running {
		return nil, fmt.Errorf("sandbox %s: %w", id, vm.ErrNotRunning)
	}
	return c.portForward(ctx, st.Namespace, pod.Name, sshPort)
}

// ownPod is the sandbox's pod: NotFound when there is none, errNotOwned
// when the pod of its name is someone else's (owner.go).
func (b *Backend) ownPod(ctx context.Context, st *state) (*corev1.Pod, error) {
	pod, err := b.cs.CoreV1().Pods(st.Namespace).Get(ctx, objName(st.ID), metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if !owned(pod, st.Owner) {
		return nil, fmt.Errorf("pod %s/%s %w", st.Namespace, pod.Name, errNotOwned)
	}
	return pod, nil
}

// notRunningNotes are status's notes for a sandbox whose pod does not run
// (why, when someone else's pod holds its name): the limits a running pod
// is probed for are not known now, and pids never has a per-pod limit.
func (b *Backend) notRunningNotes(st *state, why error) string {
	notes := []string{pidsNote}
	var r probeResult
	data, err := os.ReadFile(b.probePath(st.ID))
	switch {
	case err != nil || json.Unmarshal(data, &r) != nil || r.Verdict == "":
		notes = append(notes, "disk limit not enforced (not known: looked at from inside the pod once it runs)")
	case r.Disk != "":
		notes = append(notes, strings.Replace(r.Disk, "not enforced (", "not enforced (when it last ran: ", 1))
	}
	if errors.Is(why, errNotOwned) {
		notes = append(notes, why.Error())
	}
	return strings.Join(notes, "; ")
}
