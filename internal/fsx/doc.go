// Package fsx holds small host-side file helpers shared by the backends.
//
// Trust boundary: paths come from the host (state dirs, caches) but may lie
// under directories whose content a repository or sandbox chose, so writes
// never follow a symlink at the destination.
package fsx
