package kubernetes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/airlock-sandbox/airlock/vm"
)

// Ownership. Objects are named after the sandbox, so two airlock homes (or
// two clusters a kubeconfig switches between) can hold objects of the same
// name. Every object a Create or Start makes carries labelOwner, a random
// value made by that Create and kept in the state; cleanup, stop and rm
// delete only objects carrying it, each with its UID as a precondition, so
// an object of the same name made by someone else in between stays.
// States from before owners (Owner "") match objects without the label.
const labelOwner = "airlock.dev/owner"

// errNotOwned: an object of the sandbox's name belongs to someone else.
var errNotOwned = errors.New("belongs to another airlock home or cluster")

func newOwner() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// owned says whether an object's labels make it the state's.
func owned(m metav1.Object, owner string) bool {
	got, has := m.GetLabels()[labelOwner]
	if owner == "" {
		return !has
	}
	return got == owner
}

// objKind is one kind of the sandbox's objects, for deleteOwned.
type objKind struct {
	name string
	get  func(ctx context.Context, name string) (metav1.Object, error)
	del  func(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

func (b *Backend) kinds(ns string) (pod, policy, secret, claim objKind) {
	core := b.cs.CoreV1()
	pod = objKind{"pod", func(ctx context.Context, n string) (metav1.Object, error) {
		return core.Pods(ns).Get(ctx, n, metav1.GetOptions{})
	}, core.Pods(ns).Delete}
	policy = objKind{"network policy", func(ctx context.Context, n string) (metav1.Object, error) {
		return b.cs.NetworkingV1().NetworkPolicies(ns).Get(ctx, n, metav1.GetOptions{})
	}, b.cs.NetworkingV1().NetworkPolicies(ns).Delete}
	secret = objKind{"secret", func(ctx context.Context, n string) (metav1.Object, error) {
		return core.Secrets(ns).Get(ctx, n, metav1.GetOptions{})
	}, core.Secrets(ns).Delete}
	claim = objKind{"claim", func(ctx context.Context, n string) (metav1.Object, error) {
		return core.PersistentVolumeClaims(ns).Get(ctx, n, metav1.GetOptions{})
	}, core.PersistentVolumeClaims(ns).Delete}
	return
}

// deleteOwned deletes k's object name if owner made it and returns its UID
// ("" when there was none of ours). Another's object is left alone and
// reported as errNotOwned.
func deleteOwned(ctx context.Context, k objKind, name, owner string) (types.UID, error) {
	obj, err := k.get(ctx, name)
	if apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if !owned(obj, owner) {
		return "", fmt.Errorf("%s %s/%s (owner label %q) %w: left alone", k.name, obj.GetNamespace(), name, obj.GetLabels()[labelOwner], errNotOwned)
	}
	uid := obj.GetUID()
	err = k.del(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) { // gone, or replaced by another's since the get
		return "", nil
	}
	return uid, err
}

// goneOrReplaced is waitGone's get for an object of UID uid: NotFound
// also when the name now holds another object.
func goneOrReplaced(ctx context.Context, k objKind, name string, uid types.UID) func() error {
	return func() error {
		obj, err := k.get(ctx, name)
		if err == nil && obj.GetUID() != uid {
			return apierrors.NewNotFound(schema.GroupResource{Resource: k.name}, name)
		}
		return err
	}
}

// at is the backend for st's cluster: b when the settings point at the API
// server st was made on (or st predates recording it), else a connection
// through the kubeconfig context st was made with, when that context still
// reaches the same server. Never another cluster: a sandbox's objects are
// deleted only where they were made.
func (b *Backend) at(st *state) (*Backend, error) {
	if st.Server == "" || st.Server == b.cfg.Host {
		return b, nil
	}
	moved := fmt.Errorf("sandbox %s was made on cluster %s (kubeconfig context %q), but kubernetes.hcl and the kubeconfig now point at %s (context %q)",
		st.ID, st.Server, st.Context, b.cfg.Host, b.context)
	if b.set == nil || st.Context == "" {
		return nil, fmt.Errorf("%v; set context = %q in kubernetes.hcl to reach it: %w", moved, st.Context, vm.ErrUnavailable)
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if b.set.Kubeconfig != "" {
		rules.ExplicitPath = b.set.Kubeconfig
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: st.Context}).ClientConfig()
	if err != nil || cfg.Host != st.Server {
		return nil, fmt.Errorf("%v, and context %q no longer reaches %s; point kubernetes.hcl at that cluster to manage it: %w", moved, st.Context, st.Server, vm.ErrUnavailable)
	}
	o := &Backend{root: b.root, home: b.home, set: b.set, cfg: cfg, context: st.Context, progress: b.progress}
	if err := o.connect(); err != nil {
		return nil, err
	}
	return o, nil
}
