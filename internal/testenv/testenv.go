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
