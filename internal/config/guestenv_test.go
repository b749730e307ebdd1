package config

import (
	"fmt"
	"strings"
	"testing"
)

// Every variable airlock sets, every never-set one and an AIRLOCK_ name are
// refused in env, in either case, each at its own key (file:line:col); a
// credential's env may not name one either.
func TestReservedEnvRefusedAtItsKey(t *testing.T) {
	var names []string
	seen := map[string]bool{}
	add := func(ns ...string) {
		for _, n := range ns {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	for _, v := range GuestEnv() {
		add(v.Name, strings.ToLower(v.Name), strings.ToUpper(v.Name))
	}
	add(neverSet[:]...)
	add("AIRLOCK_SIGNER", "AIRLOCK_MCP_CONFIG", "airlock_anything")
	for _, must := range []string{"PIP_PROXY", "PIP_CERT", "HTTP_PROXY", "no_proxy", "NODE_EXTRA_CA_CERTS"} {
		if !isReservedEnv(must) {
			t.Errorf("%s is not reserved", must)
		}
	}
	var src strings.Builder
	src.WriteString("sandbox \"r\" {\n  env = {\n")
	line := map[string]int{}
	for i, n := range names {
		fmt.Fprintf(&src, "    %s = \"x\"\n", n)
		line[n] = 3 + i
	}
	src.WriteString("  }\n}\n")
	_, diags := Decode("/p/sandbox.hcl", []byte(src.String()), nil)
	got := map[int]bool{}
	for _, d := range diags {
		if d.Summary != "Reserved environment variable" || d.Subject == nil {
			t.Errorf("unexpected diagnostic: %v", d)
			continue
		}
		if d.Subject.Filename != "/p/sandbox.hcl" || d.Subject.Start.Column != 5 {
			t.Errorf("diagnostic not at the key: %s", d.Subject)
		}
		got[d.Subject.Start.Line] = true
	}
	for _, n := range names {
		if !got[line[n]] {
			t.Errorf("%s (line %d) was not refused at its key", n, line[n])
		}
	}
	for _, n := range []string{"PIP_CERT", "AIRLOCK_X", "LD_PRELOAD"} {
		src := fmt.Sprintf("sandbox \"r\" {\n  credential \"c\" {\n    secret = \"s\"\n    hosts  = [\"a.example\"]\n    env    = %q\n  }\n  network {\n    allow = [\"a.example\"]\n  }\n}\n", n)
		_, diags := Decode("/p/sandbox.hcl", []byte(src), nil)
		if !diags.HasErrors() || diags[0].Summary != "Reserved environment variable" || diags[0].Subject.Start.Line != 5 {
			t.Errorf("credential env %s: %v", n, diags)
		}
	}
	// Ordinary names pass, and GuestEnv's copy cannot change the list.
	if isReservedEnv("EDITOR") || isReservedEnv("PIP_INDEX_URL") || isReservedEnv("NODE_OPTIONS") {
		t.Error("an ordinary name is reserved")
	}
	g := GuestEnv()
	g[0].Name = "EDITOR"
	if isReservedEnv("EDITOR") {
		t.Error("GuestEnv returned the list itself")
	}
}
