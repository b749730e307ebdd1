//go:build !cgo

package wsgate

const cgoLinked = false
