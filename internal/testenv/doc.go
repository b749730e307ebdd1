// Package testenv decides what a test does when a real part it drives (a
// client, a checker, namespaces, qemu) is missing: skip on a developer's
// machine, fail in CI. .ci/run sets AIRLOCK_TEST_REQUIRE=1 after installing
// everything, so a missing dependency there is an error, never a silent skip.
//
// Test-only helper; it touches nothing outside the test process.
package testenv
