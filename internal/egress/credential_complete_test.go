package egress

import "testing"

// TestCredentialNeedsPlace: the bridge passes config's resolved header or
// query parameter; a credential with neither (or both) is refused, never
// sent in a guessed header.
func TestCredentialNeedsPlace(t *testing.T) {
	for _, c := range []Credential{
		{Name: "none", Format: "%s"},
		{Name: "both", Header: "Authorization", Query: "key", Format: "%s"},
		{Name: "noformat", Header: "Authorization"},
	} {
		c.Placeholder, c.Hosts = PlaceholderPrefix+"x", []string{"api.test"}
		if err := c.compile(); err == nil {
			t.Errorf("credential %s compiled", c.Name)
		}
	}
	ok := Credential{Name: "ok", Header: "Authorization", Format: "%s", Placeholder: PlaceholderPrefix + "x", Hosts: []string{"api.test"}}
	if err := ok.compile(); err != nil {
		t.Errorf("complete credential: %v", err)
	}
}
