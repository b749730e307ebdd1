//go:build nokubernetes

package cli_test

// registerKubernetes: left out of this build, as in cmd/airlock.
func registerKubernetes() {}
