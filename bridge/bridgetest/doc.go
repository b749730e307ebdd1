// Package bridgetest runs a real `airlock bridge` for tests: it builds the
// airlock and airlock-agent binaries once per test process, gives each
// harness a private $AIRLOCK_HOME (and $HOME), starts the bridge as a
// subprocess and drives it through the real CLI. Feature tests (egress,
// signer, review) use it to test inside real sandboxes.
//
// Trust boundary: test-only code; it runs everything as the test's user.
package bridgetest
