// Package guestspec holds the wire types between host and guest: the spec
// the namespace backend hands `airlock-agent init` and the one the microVM
// backend puts in the initramfs for `airlock-agent vminit`, the files and
// mounts they carry, and the fixed guest paths both sides agree on.
//
// Trust boundary: data only. It is the one package both sides import, so it
// imports nothing but the standard library (a test enforces it, and that the
// host binary links no guest-side code and the guest binary no host-side
// code). The host writes these specs; the guest init validates what it reads
// before acting on it.
package guestspec
