package kubernetes

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Role is the least a person's bridge needs in their namespace (the
// README prints it as YAML): pods (and their port-forward), claims,
// Secrets and NetworkPolicies; nothing cluster-wide, no pods/exec, no
// Services.
func Role(namespace string) *rbacv1.Role {
	crud := []string{"get", "list", "create", "delete"}
	return &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "airlock", Namespace: namespace},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: append(crud, "watch")},
			{APIGroups: []string{""}, Resources: []string{"pods/portforward"}, Verbs: []string{"get", "create"}},
			{APIGroups: []string{""}, Resources: []string{"persistentvolumeclaims", "secrets"}, Verbs: crud},
			{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"networkpolicies"}, Verbs: crud},
		},
	}
}
