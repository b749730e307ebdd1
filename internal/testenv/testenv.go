// Package testenv decides what a test does when a real part it drives (a
// client, a checker, namespaces, qemu) is missing: skip on a developer's
// machine, fail in CI. .ci/run sets AIRLOCK_TEST_REQUIRE=1 after installing
// everything, so a missing dependency there is an error, never a silent skip.
//
// Test-only helper; it touches nothing outside the test process.
package testenv

import (
	"fmt"
	"os"
	"testing"
)

// Required reports whether missing test dependencies are failures.
func Required() bool { return os.Getenv("AIRLOCK_TEST_REQUIRE") == "1" }

// Missing skips t (or fails it under AIRLOCK_TEST_REQUIRE=1) because a real
// part the test needs is not available; the message says what and why.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("missing test dependency (AIRLOCK_TEST_REQUIRE=1): %s", msg)
	}
	t.Skip(msg)
}
