//go:build !nokubernetes

package cli

// The kubernetes backend links client-go (the binary grows from about 26
// to 83 MB and each command starts with about 40 MB more memory); build
// with -tags nokubernetes to leave it out.
import _ "github.com/airlock-sandbox/airlock/vm/kubernetes"
