// Package namespace is the "namespace" vm.Backend: each sandbox is
// `airlock-agent init` (package internal/agent) running as PID 1 in fresh
// user, mount, PID, network, UTS and IPC namespaces, on a private tmpfs
// root holding the host's /usr read-only, a private /etc, a persistent
// /home/agent, a private /tmp and /dev, and /workspace.
//
// Trust boundary: everything inside the sandbox is untrusted. The host side
// (this package) trusts its vm.Spec (built by the bridge from an approved
// plan) and the airlock-agent binary it starts, nothing the guest writes.
// The guest reaches the host only through the sshd's unix socket in the
// sandbox's state directory (the bridge dials it); the network namespace
// has only lo. Host paths reach the guest only as descriptors this package
// opens (the workspace in direct mode, extra mounts); in clone mode the
// host repository is read by host-side git with hooks and fsmonitor off and
// only the private clone is shared. As host root, guest ids 0..65535 map to
// a host range of the sandbox's own (see ids.go), so root inside is an
// unprivileged host id and sandboxes do not share ids; the agent
// (uid 1000) runs the sshd and every session with no_new_privs and no
// capabilities, under a seccomp deny-list (no new user namespaces, no
// set-id bits, no io_uring, no AF_VSOCK, no keyrings; amd64 and arm64,
// internal/agent/seccomp_*.go; Available fails on other architectures)
// and a cgroup pids limit (cgroup.go); as host root its own directories
// sit on an ext4 image of the spec's disk size (disk.go); PID 1
// (root inside) also caps nested user namespaces at 0. As an unprivileged
// host user only the agent's id exists inside (the kernel allows one mapped
// id without newuidmap): the init runs as that id with ambient capabilities
// it drops before the sshd starts, there is no root inside to become and
// /etc belongs to the agent.
//
// What host root writes for a start, and the init reads: spec.json and
// spec-files (the files the init places inside, e.g. the CA bundle) in the
// state directory, owned by the sandbox's root, which the init reaches
// only through a close-on-exec descriptor, closed once the root is built
// and before the sshd takes its first session; no process the agent
// starts ever holds that directory.
//
// This is weaker isolation than a microVM: the guest shares the host kernel.
package namespace
