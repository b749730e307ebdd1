// Package codeshape has no code of its own: its tests hold the module to
// the shape STYLE.md asks for (today: no function over maxFuncLines lines
// beyond a short allowlist, each entry with its reason). It trusts nothing
// and is trusted by nothing; it only reads the module's sources.
package codeshape
