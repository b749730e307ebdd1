package guestspec

// VMInit is what the microVM backend hands the guest's /init (airlock-agent
// vminit) inside the initramfs at VMInitPath. Every field is data; nothing
// here names a host path.
type VMInit struct {
	Hostname string   `json:"hostname"`
	Modules  []string `json:"modules"` // module file names under /lib/modules in the initramfs, in load order
	// RootSerial is the virtio-blk serial of the root disk (ext4,
	// read-write: a qcow2 overlay on the host). Disks are found by serial
	// because virtio-mmio probe order is not a contract.
	RootSerial string `json:"root_serial"`

	User string `json:"user"` // account SSH sessions run as, e.g. "agent"
	UID  int    `json:"uid"`
	GID  int    `json:"gid"`
	Home string `json:"home"` // e.g. /home/agent

	Env            []string `json:"env"` // KEY=VALUE, base env of every session
	Files          []File   `json:"files"`
	HostKeyPEM     []byte   `json:"host_key_pem"`
	AuthorizedKeys []byte   `json:"authorized_keys"`

	Workspace VMWorkspace `json:"workspace"`
	Mounts    []VMMount   `json:"mounts"`

	// Network: the guest address on qemu's user network; the only traffic
	// is the host's forward to SSHPort.
	Addr    string `json:"addr"` // e.g. 10.0.2.15/24
	SSHPort int    `json:"ssh_port"`

	// Control is the virtio-serial port name the host uses to ask for a
	// clean power-off ("poweroff\n").
	Control string `json:"control"`

	// Docker: init runs the image's dockerd (a private engine for the
	// agent, whose socket is the guest's /run/docker.sock) and stops it
	// cleanly before power-off.
	Docker bool `json:"docker,omitempty"`

	// ResetHome: the root disk came from a template and this is the
	// sandbox's first boot (the host decides); init empties Home, so the
	// only home is the template's filtered archive the host unpacks next.
	ResetHome bool `json:"reset_home,omitempty"`
}

// VMWorkspace says how /workspace is made inside the guest.
type VMWorkspace struct {
	Target string `json:"target"` // e.g. /workspace
	// Kind: "disk" (an ext4 disk holding a private clone), "9p" (a live
	// share of the host folder), "empty" (mountless).
	Kind   string `json:"kind"`
	Serial string `json:"serial,omitempty"` // disk: virtio-blk serial of the workspace disk
	Tag    string `json:"tag,omitempty"`    // 9p: mount tag of the read-write share
	// ROTag is a read-only 9p share of the same folder; Protect paths
	// (relative to Target) are bind-mounted from it read-only.
	ROTag   string   `json:"ro_tag,omitempty"`
	Protect []string `json:"protect,omitempty"`
	// Hide lists paths (relative to Target) masked inside: files by an
	// empty read-only file, directories by an empty read-only tmpfs.
	Hide []string `json:"hide,omitempty"`
}

// VMMount is an extra 9p share.
type VMMount struct {
	Tag      string `json:"tag"`
	Target   string `json:"target"`
	ReadOnly bool   `json:"read_only"`
}

// VMInitPath is where the spec sits in the initramfs; after boot a copy
// readable by root only lives at VMInitRunPath.
const (
	VMInitPath    = "/airlock/init.json"
	VMInitRunPath = "/run/airlock/init.json"
	VMAgentPath   = AgentGuestPath
)
