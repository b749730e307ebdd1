package bridge

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// prepareEnv runs the daemon's real spec building and every feature's
// Prepare for a mountless sandbox whose file sets env, and returns the
// environment its sessions would get.
func prepareEnv(t *testing.T, d *Daemon, name string, env map[string]string) map[string]string {
	t.Helper()
	src := fmt.Sprintf("sandbox %q {\n  backend = \"namespace\"\n  workspace {\n    mode = \"mountless\"\n  }\n}\n", name)
	f, diags := config.Decode("/srv/"+name+"/sandbox.hcl", []byte(src), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	sbc := f.Sandboxes[0]
	for k, v := range env {
		sbc.Env[k] = v // as decoded: what the file asked for
	}
	sb := &sandbox{d: d, name: name, st: newSandboxState(f, sbc, "namespace")}
	hostPEM, err := d.writeSandboxFiles(sb)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := d.prepareSpec(context.Background(), nil, sb, sbc, hostPEM)
	if err != nil {
		t.Fatal(err)
	}
	return spec.Env
}

// What the bridge sets in the guest's environment over the file's value is
// exactly config.GuestEnv (plus the features' AIRLOCK_* names), the list
// sandbox.hcl may not set: every name the features set is either reserved
// or keeps the file's value (defaults the file may override, PATH and
// NODE_OPTIONS extended), and every GuestEnv name is set, to what it
// carries.
func TestGuestEnvIsWhatTheBridgeSets(t *testing.T) {
	t.Setenv("AIRLOCK_AGENT", "/nonexistent/airlock-agent") // buildSpec only names it
	d, _ := newTestDaemon(t)
	set := prepareEnv(t, d, "env-a", nil)

	want := egressEnv()
	for _, v := range config.GuestEnv() {
		if got, ok := set[v.Name]; !ok || got == "" || got != want[v.Name] {
			t.Errorf("%s (carries %s): the bridge sets %q", v.Name, v.Carries, got)
		}
	}
	if len(want) != len(config.GuestEnv()) {
		t.Errorf("egressEnv has %d names, config.GuestEnv %d", len(want), len(config.GuestEnv()))
	}

	// Every other name the bridge sets: the file's own value must survive.
	fileEnv := map[string]string{}
	var names []string
	for k := range set {
		if _, reserved := want[k]; reserved || strings.HasPrefix(k, config.AirlockEnvPrefix) {
			continue
		}
		fileEnv[k] = "from-the-file-" + strings.ToLower(k)
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatal("the bridge sets nothing but reserved names: the test no longer reaches the defaults")
	}
	got := prepareEnv(t, d, "env-b", fileEnv)
	for _, k := range names {
		if !strings.Contains(got[k], fileEnv[k]) {
			t.Errorf("%s: the file's value is lost (%q): either keep it or add %s to config.GuestEnv, the list sandbox.hcl may not set", k, got[k], k)
		}
	}
	t.Logf("defaults the file may override or extend: %s", strings.Join(names, " "))
}
