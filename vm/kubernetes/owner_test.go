package kubernetes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// fakeBackend is a backend on a fresh root talking to cs, an in-memory
// API server (no pods ever run: Create, Stop, Remove and Status only).
func fakeBackend(t *testing.T, cs *fake.Clientset, host string) *Backend {
	set := &config.KubernetesSettings{Namespace: "ns", Image: "img:1", Kubeconfig: filepath.Join(t.TempDir(), "none")}
	return &Backend{root: t.TempDir(), set: set, cfg: &rest.Config{Host: host}, context: "ctx-" + host, cs: cs}
}

func fakeCreate(t *testing.T, b *Backend, id string) error {
	spec, _ := vmtest.NewSpec(t, b, id, vmtest.Options{AgentBinary: "/nonexistent"})
	return b.Create(context.Background(), spec)
}

// kindsLeft lists id's objects in cs by kind and owner label.
func kindsLeft(t *testing.T, cs *fake.Clientset, id string) string {
	ctx := context.Background()
	sel := metav1.ListOptions{LabelSelector: labelSandbox + "=" + id}
	var left []string
	add := func(kind string, m metav1.Object) { left = append(left, kind+":"+m.GetLabels()[labelOwner]) }
	if l, _ := cs.CoreV1().Pods("ns").List(ctx, sel); l != nil {
		for i := range l.Items {
			add("pod", &l.Items[i])
		}
	}
	if l, _ := cs.CoreV1().Secrets("ns").List(ctx, sel); l != nil {
		for i := range l.Items {
			add("secret", &l.Items[i])
		}
	}
	if l, _ := cs.CoreV1().PersistentVolumeClaims("ns").List(ctx, sel); l != nil {
		for i := range l.Items {
			add("claim", &l.Items[i])
		}
	}
	if l, _ := cs.NetworkingV1().NetworkPolicies("ns").List(ctx, sel); l != nil {
		for i := range l.Items {
			add("policy", &l.Items[i])
		}
	}
	return strings.Join(left, " ")
}

// TestSameNameOtherHome: a second home creating a sandbox of a name the
// first holds (the race of outside attack 13: its Secret create loses)
// fails with ErrExists and deletes nothing of the first's; the first's rm
// then removes all its own objects, and a same-named pod someone else
// made stays.
func TestSameNameOtherHome(t *testing.T) {
	cs := fake.NewSimpleClientset()
	one, two := fakeBackend(t, cs, "https://c1"), fakeBackend(t, cs, "https://c1")
	if err := fakeCreate(t, one, "race"); err != nil {
		t.Fatal(err)
	}
	st, _ := one.load("race")
	want := "secret:" + st.Owner + " claim:" + st.Owner + " policy:" + st.Owner
	// the loser's claim check passed before the winner made its claim:
	// only its Secret create meets the winner's objects
	cs.CoreV1().PersistentVolumeClaims("ns").Delete(context.Background(), objName("race"), metav1.DeleteOptions{})
	err := fakeCreate(t, two, "race")
	if !errors.Is(err, vm.ErrExists) || !strings.Contains(err.Error(), "another airlock home") {
		t.Fatalf("second create: %v, want ErrExists naming another home", err)
	}
	if got := kindsLeft(t, cs, "race"); got != "secret:"+st.Owner+" policy:"+st.Owner {
		t.Errorf("after the loser's cleanup: %q", got)
	}
	if _, err := os.Stat(two.dir("race")); !os.IsNotExist(err) {
		t.Errorf("loser kept a state dir: %v", err)
	}
	cs.CoreV1().PersistentVolumeClaims("ns").Create(context.Background(), one.claim("ns", st), metav1.CreateOptions{})
	if got := kindsLeft(t, cs, "race"); got != want {
		t.Fatalf("objects %q, want %q", got, want)
	}
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: objName("race"), Namespace: "ns", Labels: labels(&state{ID: "race", Owner: "someone"})}}
	cs.CoreV1().Pods("ns").Create(context.Background(), other, metav1.CreateOptions{})
	if s, err := one.Status(context.Background(), "race"); err != nil || s.State != vm.StateCreated || !strings.Contains(s.Note, "another airlock home") {
		t.Errorf("status with another's pod: %+v, %v", s, err)
	}
	if _, err := one.Dial(context.Background(), "race"); !errors.Is(err, vm.ErrNotRunning) {
		t.Errorf("dial another's pod: %v", err)
	}
	if err := one.Remove(context.Background(), "race"); err != nil {
		t.Fatal(err)
	}
	if got := kindsLeft(t, cs, "race"); got != "pod:someone" {
		t.Errorf("after rm: %q, want only the other's pod", got)
	}
}

// TestOldStateRemove: a state from before owners removes the unlabelled
// objects older versions made, not a labelled one of the same name.
func TestOldStateRemove(t *testing.T) {
	cs := fake.NewSimpleClientset()
	b := fakeBackend(t, cs, "https://c1")
	if err := fakeCreate(t, b, "old"); err != nil {
		t.Fatal(err)
	}
	st, _ := b.load("old")
	ctx := context.Background()
	cs.CoreV1().Secrets("ns").Delete(ctx, objName("old"), metav1.DeleteOptions{})
	cs.CoreV1().Secrets("ns").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: objName("old"), Namespace: "ns", Labels: labels(&state{ID: "old", Owner: "new"})}}, metav1.CreateOptions{})
	cl, _ := cs.CoreV1().PersistentVolumeClaims("ns").Get(ctx, objName("old"), metav1.GetOptions{})
	delete(cl.Labels, labelOwner)
	cs.CoreV1().PersistentVolumeClaims("ns").Update(ctx, cl, metav1.UpdateOptions{})
	np, _ := cs.NetworkingV1().NetworkPolicies("ns").Get(ctx, objName("old"), metav1.GetOptions{})
	delete(np.Labels, labelOwner)
	cs.NetworkingV1().NetworkPolicies("ns").Update(ctx, np, metav1.UpdateOptions{})
	st.Owner, st.Server, st.Context = "", "", ""
	b.save(st)
	if err := b.Remove(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	if got := kindsLeft(t, cs, "old"); got != "secret:new" {
		t.Errorf("after rm of an old state: %q, want only the labelled Secret", got)
	}
}

// TestOtherCluster: a sandbox made on one API server, when the settings
// now point at another (outside attack 18) and its context no longer
// reaches the first: rm, stop, status, dial and start refuse naming both,
// and the other cluster's same-named objects stay.
func TestOtherCluster(t *testing.T) {
	cs1, cs2 := fake.NewSimpleClientset(), fake.NewSimpleClientset()
	b1 := fakeBackend(t, cs1, "https://c1")
	if err := fakeCreate(t, b1, "moved"); err != nil {
		t.Fatal(err)
	}
	b2 := fakeBackend(t, cs2, "https://c2")
	b2.root = b1.root
	if err := fakeCreate(t, fakeBackend(t, cs2, "https://c2"), "moved"); err != nil {
		t.Fatal(err)
	}
	before := kindsLeft(t, cs2, "moved")
	ctx := context.Background()
	_, dialErr := b2.Dial(ctx, "moved")
	_, statusErr := b2.Status(ctx, "moved")
	for name, err := range map[string]error{
		"rm": b2.Remove(ctx, "moved"), "stop": b2.Stop(ctx, "moved"), "start": b2.Start(ctx, "moved"),
		"dial": dialErr, "status": statusErr,
	} {
		if err == nil || !strings.Contains(err.Error(), "https://c1") || !strings.Contains(err.Error(), "https://c2") {
			t.Errorf("%s: %v, want a refusal naming both clusters", name, err)
		}
	}
	if got := kindsLeft(t, cs2, "moved"); got != before {
		t.Errorf("the other cluster's objects: %q, were %q", got, before)
	}
	if _, err := b1.load("moved"); err != nil {
		t.Errorf("refused rm dropped the state: %v", err)
	}
}

// TestStoppedStatusLimits: a stopped sandbox's status calls neither pids
// nor disk enforced (outside attack 08): pids has no per-pod limit, and
// the disk is only known from inside a running pod.
func TestStoppedStatusLimits(t *testing.T) {
	b := fakeBackend(t, fake.NewSimpleClientset(), "https://c1")
	if err := fakeCreate(t, b, "stopped"); err != nil {
		t.Fatal(err)
	}
	st, _ := b.load("stopped")
	st.Started = true
	b.save(st)
	s, err := b.Status(context.Background(), "stopped")
	if err != nil || s.State != vm.StateStopped {
		t.Fatalf("status %+v, %v", s, err)
	}
	for _, want := range []string{"no pids limit (", "disk limit not enforced (not known"} {
		if !strings.Contains(s.Note, want) {
			t.Errorf("stopped note %q lacks %q", s.Note, want)
		}
	}
	os.WriteFile(b.probePath("stopped"), []byte(`{"PodUID":"u","Verdict":"x","Disk":"disk limit not enforced (on a 50 GiB file system)"}`), 0o600)
	if s, _ := b.Status(context.Background(), "stopped"); !strings.Contains(s.Note, "disk limit not enforced (when it last ran: on a 50 GiB") {
		t.Errorf("stopped note after a probe: %q", s.Note)
	}
}

// TestAtRecordedContext: after the kubeconfig's current context moves to
// another cluster, a sandbox is reached through the context it was made
// with while that context still names its API server (outside attack 18),
// and refused once it names another.
func TestAtRecordedContext(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "config")
	write := func(oneServer string) {
		os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters: [{name: one, cluster: {server: "`+oneServer+`"}}, {name: two, cluster: {server: "https://c2"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: one, context: {cluster: one, user: u}}, {name: two, context: {cluster: two, user: u}}]
current-context: two
`), 0o600)
	}
	write("https://c1")
	b := fakeBackend(t, fake.NewSimpleClientset(), "https://c2")
	b.set.Kubeconfig = kc
	st := &state{ID: "s", Server: "https://c1", Context: "one"}
	o, err := b.at(st)
	if err != nil || o == b || o.cfg.Host != "https://c1" || o.context != "one" {
		t.Fatalf("at: %v, %+v", err, o)
	}
	if o, err := b.at(&state{ID: "s", Server: "https://c2", Context: "two"}); err != nil || o != b {
		t.Errorf("same server: %v", err)
	}
	write("https://elsewhere")
	if _, err := b.at(st); err == nil || !strings.Contains(err.Error(), "no longer reaches https://c1") {
		t.Errorf("context moved: %v", err)
	}
}

// TestCreateSavesStateFirst: while Create makes the objects, its state
// (with the owner they carry) is already on disk, so a bridge killed
// in between leaves a sandbox rm can find them by (outside attack 09).
func TestCreateSavesStateFirst(t *testing.T) {
	cs := fake.NewSimpleClientset()
	at, resume := make(chan struct{}), make(chan struct{})
	cs.PrependReactor("create", "persistentvolumeclaims", func(k8stesting.Action) (bool, runtime.Object, error) {
		close(at)
		<-resume
		return false, nil, nil
	})
	b := fakeBackend(t, cs, "https://c1")
	done := make(chan error)
	go func() { done <- fakeCreate(t, b, "early") }()
	<-at
	st, err := b.load("early") // (the fake's lock is held: no API call here)
	close(resume)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sec, serr := cs.CoreV1().Secrets("ns").Get(context.Background(), objName("early"), metav1.GetOptions{})
	if err != nil || serr != nil || st.Owner == "" || sec.Labels[labelOwner] != st.Owner {
		t.Fatalf("mid-create: state %+v (%v), secret %v", st, err, serr)
	}
}
