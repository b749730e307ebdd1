// Package kubernetes is the vm.Backend that runs each sandbox as a Pod on
// a cluster the host settings name ($AIRLOCK_HOME/kubernetes.hcl: the
// repository's sandbox.hcl can only ask for backend = "kubernetes").
//
// Per sandbox, in the settings' namespace, all named airlock-ID and
// labelled airlock.dev/sandbox=ID and airlock.dev/owner=OWNER (random per
// Create, kept in the sandbox's state with the API server and kubeconfig
// context it was made on): stop, rm and a failed create's cleanup delete
// only objects carrying the owner, each with its UID as a delete
// precondition, on the cluster the sandbox was made on (owner.go), so a
// same-named sandbox of another home or cluster is never touched:
//
//   - a Secret: the guest sshd's host key and authorized keys, the spec's
//     files, the contents of read-only mounts (under 1 MiB in all);
//   - a PersistentVolumeClaim (DiskBytes): home and workspace, kept by
//     Stop, deleted by Remove;
//   - a NetworkPolicy selecting the pod with no rule: no traffic in or
//     out, on clusters whose network plugin enforces policies;
//   - the Pod, made by Start and deleted by Stop: an init container
//     prepares the claim, then airlock-agent's sshd listens on the pod's
//     loopback only. Both run as uid 1000 with no capabilities, no
//     privilege escalation, a read-only root, the runtime's default
//     seccomp profile, no service account token, no host namespaces but
//     the user namespace (hostUsers: false with the settings'
//     user_namespace = true) and the settings' runtimeClassName; CPU, memory and ephemeral-storage
//     limits come from the spec (DiskBytes also sizes the claim). Pids have
//     no per-pod field: the node's podPidsLimit applies. The termination
//     message file (kept by the kubelet on the node's disk, writable, not
//     counted as ephemeral storage) is at terminationLog under the image's
//     /root, which uid 1000 cannot traverse; the init script refuses an
//     image whose /root it can. A workspace or mount target may not share
//     the agent container's own volumes' paths (ownMounts, declared as
//     vm.Capabilities.OwnMounts so validate and plan refuse it).
//
// Nothing is exposed by a Service: Dial is the API server's port-forward
// (a WebSocket tunnel, SPDY as fallback, like kubectl), and everything
// else (egress through the host proxy, signer, MCP, review) rides the SSH
// connection on top of it as with the other backends.
//
// Workspace: clone mode pushes over SSH at the first start, as a tar
// stream, the private clone every backend gives (internal/wsclone: no
// .git/config, hooks or ignored files of the host's, hidden paths left
// out), made in the state dir and removed after; mountless
// starts empty; direct mode is refused (a live share cannot reach another
// machine), and so are read-write mounts and Docker.
//
// Trust boundary: this package runs on the host with the user's cluster
// credentials. It trusts the settings and the Spec, not the pod. What it
// reads back from the guest is the SSH stream (host key pinned) and, once
// per pod, the disk probe's df (netprobe.go), which runs as the agent's
// user in a pod whose home the agent may have written on an earlier
// start: `status` shows that as the sandbox's report (unverified). The
// NetworkPolicy's verdict comes from the bridge's own probe pod
// (probepod.go: the policy selects it, no agent code runs in it, its
// answer is its termination message); it is a hint all the same, never a
// reason to loosen anything (egress is the host proxy's decision either
// way).
//
// On the sandbox's behalf, in the bridge process (the user's uid and
// capabilities, the bridge's cgroup):
//
//	API call (the user's credentials)       when
//	--------------------------------------  ----------------------------------
//	create/get/delete Secret, PVC, Pod,     up, start, stop, rm (names and
//	NetworkPolicy in the settings'          labels from the sandbox's name,
//	namespace                               contents from the approved Spec;
//	                                        a delete is a get, an owner check,
//	                                        then a delete with UID precondition)
//	create/get/delete Pod airlock-ID-wipe   rm of a sandbox that ran: empties
//	                                        the claim before it is deleted
//	                                        (wipe.go)
//	create/get/delete Pod airlock-ID-probe  once per sandbox pod, in the
//	                                        background after the first
//	                                        status (up and start ask one):
//	                                        the NetworkPolicy probe; its
//	                                        answer is read from the pod's
//	                                        status (termination message, no
//	                                        pods/log); stop and rm delete a
//	                                        leftover one (probepod.go)
//	pods/portforward (WebSocket, SPDY)      every SSH connection (Dial)
//	watch/get Pod                           waiting for Running, status
//
// No other host call is made for the sandbox: no exec through the API (the
// disk probe rides SSH), no pods/log, no access outside the namespace.
package kubernetes
