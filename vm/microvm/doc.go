// Package microvm is the "microvm" vm.Backend: every sandbox is a qemu
// microvm machine with its own Linux kernel (Debian's generic kernel,
// fetched with apt-get download into $AIRLOCK_HOME/cache, never installed on
// the host), an initramfs whose /init is airlock-agent (vminit), a root disk
// that is a qcow2 overlay on a shared read-only Debian image
// ($AIRLOCK_HOME/images/NAME.img, made by `airlock image build`), and the
// workspace as a second ext4 disk (clone mode) or a virtio-9p share (direct
// mode).
//
// Trust boundary: everything inside the guest is untrusted. The guest
// reaches the host only through qemu's devices: its disks (files in the
// sandbox's state dir), the 9p shares the plan approved (read-only where the
// plan says so), a virtio-serial control port that the host only writes
// "poweroff" to, and qemu user networking with restrict=on whose single
// host forward (127.0.0.1:PORT -> guest :22) carries SSH; the guest cannot
// open connections to the host or the internet, and has no DNS. Egress and
// signing ride that SSH connection (bridge features), as in the namespace
// backend. qemu drops to user nobody after setup when it runs as root and
// shares no host folder.
//
// Direct mode limits: hidden files are masked inside by bind mounts made by
// the guest's init (root in the guest could unmask them; the agent runs as
// uid 1000), and the guest sees host file ownership, so a share the host
// user (uid != 1000) owns may be read-only for the agent.
//
// Clone mode limit: a hidden file that is committed is removed from the
// clone's checkout but its blob stays in the clone's history (git objects).
//
// KVM is used only when a boot probe succeeds (KVMUsable); otherwise qemu
// runs under TCG and Status.Note says so.
package microvm
