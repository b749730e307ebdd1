package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// KubernetesFile is the host settings file of the kubernetes backend,
// $AIRLOCK_HOME/kubernetes.hcl. The host, not the repository, picks the
// cluster: sandbox.hcl may only say backend = "kubernetes".
//
//	kubeconfig    = "~/.kube/config"   # default: $KUBECONFIG, then ~/.kube/config
//	context       = "team-cluster"     # default: the kubeconfig's current context
//	namespace     = "airlock-alice"    # required: one namespace per person
//	image         = "registry.example/airlock:1"   # required: airlock image build --oci
//	runtime_class = "kata"             # RuntimeClass of every sandbox pod (optional)
//	storage_class = "fast-ssd"         # class of the home/workspace claim (default: the cluster's)
//	node_name     = "node-1"           # bind pods to a node, skipping the scheduler (optional)
//	node_selector = { "airlock.dev/sandboxes" = "true" }
//	user_namespace = true               # pods get a user namespace (hostUsers: false); default false
//	toleration {
//	  key      = "sandboxes"
//	  operator = "Exists"
//	  effect   = "NoSchedule"
//	}
const KubernetesFile = "kubernetes.hcl"

// KubernetesSettings is the decoded kubernetes.hcl.
type KubernetesSettings struct {
	Kubeconfig   string            `hcl:"kubeconfig,optional"`
	Context      string            `hcl:"context,optional"`
	Namespace    string            `hcl:"namespace"`
	Image        string            `hcl:"image"`
	RuntimeClass string            `hcl:"runtime_class,optional"`
	StorageClass string            `hcl:"storage_class,optional"`
	NodeName     string            `hcl:"node_name,optional"`
	NodeSelector map[string]string `hcl:"node_selector,optional"`
	Tolerations  []KubeToleration  `hcl:"toleration,block"`
	// UserNamespace sets the pods' hostUsers: false, so uid 1000 in the pod
	// is not uid 1000 on the node. Off by default: the node's runtime must
	// support it (containerd 2.0+ with runc 1.2+ or crun, Linux 6.3+ for
	// idmapped tmpfs), and a pod asking on a node that cannot does not start.
	UserNamespace bool   `hcl:"user_namespace,optional"`
	Path          string // file the settings came from
}

// KubeToleration is one `toleration` block (a pod toleration).
type KubeToleration struct {
	Key      string `hcl:"key,optional"`
	Operator string `hcl:"operator,optional"` // "Equal" (default) or "Exists"
	Value    string `hcl:"value,optional"`
	Effect   string `hcl:"effect,optional"` // "", NoSchedule, PreferNoSchedule, NoExecute
}

var (
	dnsLabelRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`) })
	dnsSubdomainRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`) })
	labelKeyRE     = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)
	})
	labelValueRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$`) })
	imageRefRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+([._/:@-][A-Za-z0-9_.-]+)*$`) })
)

// LoadKubernetes reads home/kubernetes.hcl. A missing file is an error
// that says what to write: the backend cannot guess a cluster.
func LoadKubernetes(home string) (*KubernetesSettings, hcl.Diagnostics) {
	path := filepath.Join(home, KubernetesFile)
	src, err := readFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read kubernetes host settings",
			Detail: fmt.Sprintf("Reading %s failed: %s. The kubernetes backend needs it: at least namespace = \"...\" and image = \"...\" (see the README's Kubernetes section).",
				path, unwrapPathError(err)),
		}}
	}
	return DecodeKubernetes(path, src)
}

// DecodeKubernetes parses and validates src, the content of filename.
func DecodeKubernetes(filename string, src []byte) (*KubernetesSettings, hcl.Diagnostics) {
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	var ks KubernetesSettings
	if d := gohcl.DecodeBody(f.Body, nil, &ks); d.HasErrors() {
		return nil, append(diags, d...)
	}
	ks.Path = filename
	body := f.Body.(*hclsyntax.Body)
	at := func(name string) *hcl.Range {
		if a, ok := body.Attributes[name]; ok {
			r := a.Expr.Range()
			return &r
		}
		return body.SrcRange.Ptr()
	}
	bad := func(attr, summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: at(attr)})
	}
	if !dnsLabelRE().MatchString(ks.Namespace) {
		bad("namespace", "Invalid namespace", fmt.Sprintf("%q is not a Kubernetes namespace name (lowercase letters, digits and dashes, at most 63).", ks.Namespace))
	}
	if ks.Image == "" || !imageRefRE().MatchString(ks.Image) || len(ks.Image) > 512 {
		bad("image", "Invalid image", fmt.Sprintf("%q is not an image reference such as registry.example/airlock:1 (airlock image build --oci makes one).", ks.Image))
	}
	for _, a := range [][2]string{{"runtime_class", ks.RuntimeClass}, {"storage_class", ks.StorageClass}, {"node_name", ks.NodeName}} {
		if a[1] != "" && !dnsSubdomainRE().MatchString(a[1]) {
			bad(a[0], "Invalid "+strings.ReplaceAll(a[0], "_", " "), fmt.Sprintf("%q is not a Kubernetes object name (lowercase letters, digits, dots and dashes).", a[1]))
		}
	}
	if strings.ContainsAny(ks.Context, "\n\x00") {
		bad("context", "Invalid context", "A context name is one line.")
	}
	if ks.Kubeconfig != "" {
		ks.Kubeconfig = resolveKubeconfig(ks.Kubeconfig, filename)
	}
	for k, v := range ks.NodeSelector {
		if !labelKeyRE().MatchString(k) || !labelValueRE().MatchString(v) {
			bad("node_selector", "Invalid node selector", fmt.Sprintf("%q = %q is not a Kubernetes label (key: [prefix/]name, value: at most 63 letters, digits, '-', '_', '.').", k, v))
		}
	}
	for i, t := range ks.Tolerations {
		if msg := tolerationProblem(t); msg != "" {
			r := tolerationRange(body, i)
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid toleration", Detail: msg, Subject: &r})
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return &ks, diags
}

// resolveKubeconfig expands a leading ~/ and makes p absolute against the
// directory of the settings file that names it.
func resolveKubeconfig(p, settingsFile string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if h, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(h, rest)
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(settingsFile), p)
	}
	return p
}

// tolerationRange is where the i-th toleration block starts.
func tolerationRange(body *hclsyntax.Body, i int) hcl.Range {
	r := body.Blocks[0].DefRange()
	n := 0
	for _, b := range body.Blocks {
		if b.Type == "toleration" {
			if n == i {
				r = b.DefRange()
			}
			n++
		}
	}
	return r
}

// tolerationProblem says what is wrong with t ("" = nothing), as a
// diagnostic's detail.
func tolerationProblem(t KubeToleration) string {
	switch {
	case t.Operator != "" && t.Operator != "Equal" && t.Operator != "Exists":
		return fmt.Sprintf("operator %q: want \"Equal\" or \"Exists\".", t.Operator)
	case t.Operator == "Exists" && t.Value != "":
		return "operator \"Exists\" takes no value."
	case t.Effect != "" && t.Effect != "NoSchedule" && t.Effect != "PreferNoSchedule" && t.Effect != "NoExecute":
		return fmt.Sprintf("effect %q: want NoSchedule, PreferNoSchedule or NoExecute.", t.Effect)
	case t.Key != "" && !labelKeyRE().MatchString(t.Key):
		return fmt.Sprintf("key %q is not a label key.", t.Key)
	case t.Key == "" && t.Operator != "Exists":
		return "a toleration without a key needs operator = \"Exists\"."
	}
	return ""
}
