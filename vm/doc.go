// Package vm defines how airlock runs a sandbox: the Backend interface every
// isolation mechanism implements (microVM, namespaces), the Spec the bridge
// hands it, a registry of backends and the error kinds callers test with
// errors.Is.
//
// Trust boundary: everything in this package runs on the host. A Spec is built
// by the bridge from an approved sandbox.hcl plan; backends trust the Spec but
// nothing that comes back out of the guest. The only host↔guest channel a
// backend exposes is Dial, a byte stream to the guest's embedded sshd: all
// other traffic (exec, ports, egress, signer) rides SSH on top of it.
package vm
