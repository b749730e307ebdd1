//go:build airlockdeps

// Package deps pins the modules the project is about to use while parallel
// work lands; it is removed once every module is imported for real.
package deps

import (
	_ "github.com/creack/pty"
	_ "github.com/ethereum/go-ethereum/core/types"
	_ "github.com/ethereum/go-ethereum/signer/core/apitypes"
	_ "github.com/gliderlabs/ssh"
	_ "github.com/golang-jwt/jwt/v5"
	_ "github.com/hashicorp/hcl/v2"
	_ "github.com/hashicorp/hcl/v2/gohcl"
	_ "github.com/hashicorp/hcl/v2/hclwrite"
	_ "github.com/pkg/sftp"
	_ "github.com/sourcegraph/jsonrpc2"
	_ "github.com/zclconf/go-cty/cty"
	_ "golang.org/x/net/idna"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/term"
)
