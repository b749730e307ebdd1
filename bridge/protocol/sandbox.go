package protocol

// Lifecycle methods of `airlock bridge`. Names are the JSON-RPC method names.
const (
	MethodUp        = "sandbox.up"
	MethodList      = "sandbox.list"
	MethodStop      = "sandbox.stop"
	MethodStart     = "sandbox.start"
	MethodRemove    = "sandbox.remove"
	MethodExec      = "sandbox.exec"
	MethodPorts     = "sandbox.ports"
	MethodSSHHost   = "sandbox.sshHost"
	MethodPlanShow  = "plan.show"
	MethodApprove   = "plan.approve"
	MethodSubscribe = "bridge.subscribe"
	MethodPing      = "bridge.ping"
	MethodShutdown  = "bridge.shutdown"

	// NotifyChanged is sent to subscribed clients whenever a sandbox changes state.
	NotifyChanged = "sandbox.changed"
	// NotifyProgress carries one line of a backend's long first-use work
	// (guest kernel fetch, image build) to subscribed clients.
	NotifyProgress = "backend.progress"
)

// Sandbox states as clients see them (vm.State plus transitional ones).
const (
	StateCreated  = "created"
	StateRunning  = "running"
	StateStopped  = "stopped"
	StateStarting = "starting"
	StateUnknown  = "unknown" // the backend could not say; see Note
)

// UpParams asks the bridge to create and start a sandbox from a sandbox.hcl.
type UpParams struct {
	ConfigPath string            `json:"configPath"`        // absolute path of sandbox.hcl
	Name       string            `json:"name,omitempty"`    // which sandbox block; "" = the only one
	Backend    string            `json:"backend,omitempty"` // "", "auto", "microvm", "namespace": overrides the file
	Vars       map[string]string `json:"vars,omitempty"`    // -var NAME=VALUE
	// Approve records approval of the file's current SHA-256 before bringing
	// it up (the CLI's --yes). Without it the plan must already be approved.
	Approve bool `json:"approve,omitempty"`
	// Template overrides the file's `template`: a new sandbox's home starts
	// from this saved template (ignored for an existing sandbox).
	Template string `json:"template,omitempty"`
}

// UpResult is returned once the sandbox's SSH is ready.
type UpResult struct {
	Sandbox  Sandbox  `json:"sandbox"`
	Warnings []string `json:"warnings,omitempty"` // one line each, shown to the user
}

// Sandbox is one sandbox as listed by the bridge.
type Sandbox struct {
	Name         string `json:"name"`
	Backend      string `json:"backend"`
	Mode         string `json:"mode"` // workspace mode: direct | clone | mountless
	State        string `json:"state"`
	ConfigPath   string `json:"configPath"`
	ConfigSHA256 string `json:"configSha256"`
	WorkspaceDir string `json:"workspace,omitempty"`
	Target       string `json:"target,omitempty"` // the workspace inside ("/workspace")
	SSHHost      string `json:"sshHost"`          // NAME.airlock
	Ports        []Port `json:"ports"`
	Note         string `json:"note,omitempty"`
	// MemoryBytes is the host memory the running sandbox uses (qemu's
	// resident set for a microVM); 0 when unknown or not running.
	MemoryBytes int64 `json:"memoryBytes,omitempty"`
	// What the approved file asked for (airlock status).
	Limits   *Limits `json:"limits,omitempty"`
	Preset   string  `json:"preset,omitempty"`     // network preset
	Signer   int     `json:"signerKeys,omitempty"` // signer keys the file declares
	Created  string  `json:"created,omitempty"`    // RFC 3339 UTC
	Reviewed string  `json:"reviewed,omitempty"`   // snapshot of the last `airlock review`
	Applied  string  `json:"applied,omitempty"`    // snapshot of the last `airlock apply`
}

// Limits are the resources a sandbox's file asked for.
type Limits struct {
	CPUs   int   `json:"cpus"`
	Memory int64 `json:"memory"`
	Disk   int64 `json:"disk"`
	Pids   int   `json:"pids"`
}

// Port is one forwarded port: host Bind:Host → guest 127.0.0.1:Guest.
type Port struct {
	Name      string `json:"name"`
	Guest     int    `json:"guest"`
	Host      int    `json:"host"`
	Bind      string `json:"bind"`
	Listening bool   `json:"listening"`
}

// NameParams names one sandbox.
type NameParams struct {
	Name string `json:"name"`
}

// RemoveParams names the sandbox sandbox.remove deletes. With Guard the
// bridge refuses (CodeInvalidState, saying what would be lost) while the
// sandbox has work not applied to the host repository or commands still
// running; the CLI sets it unless `rm --force`.
type RemoveParams struct {
	Name  string `json:"name"`
	Guard bool   `json:"guard,omitempty"`
}

// ListResult lists every sandbox the bridge knows.
type ListResult struct {
	Sandboxes []Sandbox `json:"sandboxes"`
}

// ExecParams runs argv inside the sandbox as its agent user (no PTY).
type ExecParams struct {
	Name  string   `json:"name"`
	Argv  []string `json:"argv"`
	Stdin string   `json:"stdin,omitempty"`
}

// ExecResult is the buffered outcome of ExecParams (each stream capped at 16 MiB).
type ExecResult struct {
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode int    `json:"exitCode"`
}

// PortsResult lists a sandbox's port forwards.
type PortsResult struct {
	Ports []Port `json:"ports"`
}

// SSHHostResult tells a client how to reach a sandbox's sshd.
type SSHHostResult struct {
	Host       string `json:"host"`       // NAME.airlock, the Host in ConfigFile
	ConfigFile string `json:"configFile"` // $AIRLOCK_HOME/ssh/config
	User       string `json:"user"`       // the agent user
	Endpoint   string `json:"endpoint"`   // unix socket: a byte stream to the guest's sshd
	HostKey    string `json:"hostKey"`    // pinned host key, authorized_keys format
}

// PlanParams selects a config file (and sandbox block) to show.
type PlanParams struct {
	ConfigPath string            `json:"configPath"`
	Name       string            `json:"name,omitempty"`
	Vars       map[string]string `json:"vars,omitempty"`
}

// PlanResult is what the file asks for, in plain words.
type PlanResult struct {
	Name     string `json:"name"`   // the selected sandbox block
	SHA256   string `json:"sha256"` // of the file's bytes: the approval key
	Text     string `json:"text"`
	Approved bool   `json:"approved"`
}

// ApproveParams approves a config file, pinned to the hash the user saw.
type ApproveParams struct {
	ConfigPath string `json:"configPath"`
	SHA256     string `json:"sha256"`
}

// ProgressParams is the payload of NotifyProgress.
type ProgressParams struct {
	Backend string `json:"backend"`
	Line    string `json:"line"`
}

// ChangedParams is the payload of NotifyChanged.
type ChangedParams struct {
	Name    string `json:"name"`
	State   string `json:"state"`
	Removed bool   `json:"removed,omitempty"`
}
