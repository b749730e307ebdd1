package config

import (
	"strings"
	"testing"
)

// TestPlanSignerLimits: the plan shows each token's decimals and its limits
// in base units, max_fee, and flags a well-known token declared with other
// decimals.
func TestPlanSignerLimits(t *testing.T) {
	f := mustDecode(t, `sandbox "s" {
  signer {
    key "k" { ref = "dep" }
    policy "tokens" {
      key = "k"
      operations = ["eth_signTransaction"]
      chain_ids = [1]
      max_fee = "0.01 ether"
      approval = "above_limit"
      token "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48" {
        symbol = "USDC"
        decimals = 18
        max_amount = "100"
        daily_limit = "0.5"
      }
    }
  }
}`, nil)
	if got := f.Sandboxes[0].Signer.Policies[0].MaxFee; got != "0.01 ether" {
		t.Fatalf("max_fee decoded as %q", got)
	}
	text := BuildPlan(f).Text()
	for _, want := range []string{
		"decimals = 18",
		"at most 100 (100000000000000000000 base units) per request",
		"0.5 (500000000000000000 base units) per day",
		"fees at most 0.01 ether per transaction",
		"mainnet USDC, which has 6 decimals, but this file declares decimals = 18: its limits are 10^12 times larger",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("plan lacks %q:\n%s", want, text)
		}
	}
}

// TestPlanSharedHMACKey: one store key used for hmac under policies with
// different approval settings is flagged in every sandbox that uses it.
func TestPlanSharedHMACKey(t *testing.T) {
	sb := func(name, purpose, approval string) string {
		return `sandbox "` + name + `" {
  signer {
    key "h" { ref = "hm" }
    policy "p" {
      key = "h"
      operations = ["hmac"]
      purposes = ["` + purpose + `"]
      approval = "` + approval + `"
      rate = "10/minute"
    }
  }
}
`
	}
	f := mustDecode(t, sb("prod", "deploy", "always")+sb("scratch", "test", "never")+sb("other", "x", "always"), nil)
	p := BuildPlan(f)
	for _, s := range p.Sandboxes {
		flagged := strings.Contains(strings.Join(s.Warnings, "\n"), `signer key "hm" is used for hmac under policies with different approval`)
		if !flagged { // all three MAC with store key "hm"
			t.Errorf("sandbox %s: flagged %v; warnings %q", s.Name, flagged, s.Warnings)
		}
	}
	if !strings.Contains(p.Text(), "the weakest (never)") {
		t.Errorf("plan text:\n%s", p.Text())
	}
}
