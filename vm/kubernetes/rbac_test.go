package kubernetes

import (
	"context"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8s "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// TestLeastPrivilege: a user holding only Role in the namespace runs a
// sandbox's whole life (create, start, SSH through port-forward, stop,
// start, rm) and can do nothing outside the namespace.
func TestLeastPrivilege(t *testing.T) {
	c := needCluster(t)
	admin := newTestBackend(t, t.TempDir())
	ctx := context.Background()
	user := uniqueID("alice")
	role := Role(admin.set.Namespace)
	role.Name = user
	if _, err := admin.cs.RbacV1().Roles(role.Namespace).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.cs.RbacV1().RoleBindings(role.Namespace).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user, Namespace: role.Namespace},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: user, APIGroup: rbacv1.GroupName}},
		RoleRef:    rbacv1.RoleRef{Kind: "Role", Name: user, APIGroup: rbacv1.GroupName},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kc, err := c.UserKubeconfig(user)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := k8s.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("list pods in kube-system as %s: %v, want forbidden", user, err)
	}
	if _, err := cs.CoreV1().Services(role.Namespace).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("list services as %s: %v, want forbidden", user, err)
	}
	b, err := New(t.TempDir(), testSettings(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Available(ctx); err != nil {
		t.Fatal(err)
	}
	o := vmtest.Options{AgentBinary: agentBin, StartTimeout: 2 * time.Minute}
	spec, keys := vmtest.NewSpec(t, b, uniqueID("rbac"), o)
	vmtest.Up(t, b, spec, o)
	if got := vmtest.MustExec(t, vmtest.Connect(t, b, spec.ID, keys), "echo as-"+user); !strings.HasPrefix(got, "as-") {
		t.Fatalf("exec: %q", got)
	}
	if err := b.Stop(ctx, spec.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(ctx, spec.ID); err != nil {
		t.Fatal(err)
	}
	st, err := b.Status(ctx, spec.ID)
	if err != nil || st.State != vm.StateRunning {
		t.Fatalf("status %+v %v", st, err)
	}
	if err := b.Remove(ctx, spec.ID); err != nil {
		t.Fatal(err)
	}
	if left := leftovers(t, b, spec.ID); left != "" {
		t.Errorf("rm left %s", left)
	}
}
