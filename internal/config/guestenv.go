package config

import (
	"slices"
	"strings"
)

// The environment airlock sets in every session of a sandbox is one list
// with two readers: the bridge sets exactly these names over whatever the
// file asked for (bridge/egress.go fills the values by what each carries),
// and sandbox.hcl may set none of them, in env or as a credential's env:
// "Reserved environment variable" at the name's file:line:col. Names are
// compared without case (HTTP_PROXY and http_proxy are both read by
// clients). Tests enumerate it on both sides (config's
// TestReservedEnvRefusedAtItsKey, bridge's TestGuestEnvIsWhatTheBridgeSets).

// GuestVar is one variable airlock sets in the guest and what it carries.
type GuestVar struct {
	Name    string
	Carries Carries
}

// Carries is what a guest variable holds.
type Carries string

const (
	CarriesProxy    Carries = "proxy"     // the egress proxy's URL inside the guest
	CarriesNoProxy  Carries = "no-proxy"  // the loopback names that bypass it
	CarriesCABundle Carries = "ca-bundle" // the host's roots plus the sandbox CA
	CarriesCACert   Carries = "ca-cert"   // the sandbox CA alone
)

var guestEnv = [...]GuestVar{
	{"HTTP_PROXY", CarriesProxy}, {"HTTPS_PROXY", CarriesProxy}, {"http_proxy", CarriesProxy}, {"https_proxy", CarriesProxy},
	{"npm_config_proxy", CarriesProxy}, {"npm_config_https_proxy", CarriesProxy}, {"PIP_PROXY", CarriesProxy},
	{"NO_PROXY", CarriesNoProxy}, {"no_proxy", CarriesNoProxy},
	{"SSL_CERT_FILE", CarriesCABundle}, {"GIT_SSL_CAINFO", CarriesCABundle}, {"REQUESTS_CA_BUNDLE", CarriesCABundle},
	{"CURL_CA_BUNDLE", CarriesCABundle}, {"PIP_CERT", CarriesCABundle},
	{"NODE_EXTRA_CA_CERTS", CarriesCACert},
}

// GuestEnv returns the variables airlock sets in every session (a copy:
// importers cannot change the list).
func GuestEnv() []GuestVar { return slices.Clone(guestEnv[:]) }

// neverSet are names no file may set although airlock does not set them
// either: a proxy or CA setting beside the ones above would steer clients
// around the egress proxy's, and loader variables put code into every
// process of every session.
var neverSet = [...]string{"ALL_PROXY", "SSL_CERT_DIR", "LD_PRELOAD", "LD_LIBRARY_PATH"}

// AirlockEnvPrefix: AIRLOCK_* names are the features' own (AIRLOCK_SIGNER,
// AIRLOCK_MCP_CONFIG, ...), set by the bridge for the sandboxes that use
// them; the file may set none.
const AirlockEnvPrefix = "AIRLOCK_"

// isReservedEnv reports whether the file may not set name: one of
// GuestEnv, a neverSet name or AIRLOCK_*, in any case.
func isReservedEnv(name string) bool {
	u := strings.ToUpper(name)
	if strings.HasPrefix(u, AirlockEnvPrefix) || u == strings.TrimSuffix(AirlockEnvPrefix, "_") {
		return true
	}
	for _, v := range guestEnv {
		if strings.EqualFold(v.Name, name) {
			return true
		}
	}
	return slices.Contains(neverSet[:], u)
}

// reservedWhy says, for a reserved name, why the file may not set it.
func reservedWhy(name string) string {
	for _, v := range guestEnv {
		if strings.EqualFold(v.Name, name) {
			return "airlock sets it in every session (" + string(v.Carries) + ": it points clients at the egress proxy and its CA) and would overwrite the file's value"
		}
	}
	if strings.HasPrefix(strings.ToUpper(name), AirlockEnvPrefix) || strings.EqualFold(name, "AIRLOCK") {
		return "AIRLOCK_* names belong to airlock's own services (signer, MCP gateway)"
	}
	return "it would steer clients around the egress proxy's settings or load code into every process"
}
