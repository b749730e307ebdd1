package bridge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/fsx"
)

// Layout of $AIRLOCK_HOME used by the bridge. Each sandbox has two
// directories with distinct owners:
//
//	sandboxes/NAME/               the sandbox's record (SandboxRef.RecordDir), the bridge's:
//	  sandbox.json                  sandboxState, the truth about the sandbox (atomic writes)
//	  host_key[.pub]                the sandbox's ed25519 host key (pinned)
//	  ssh.sock                      byte stream to the guest sshd while running
//	  provenance.json, egress and MCP logs, ...   the features' files
//	vm/BACKEND/NAME/              the backend's working directory (vm.Spec.StateDir), the
//	                              backend's alone: disks, pid files, its own record
//	                              (namespace: backend.json; microvm: config.json, run.json)
//	bridge.sock, bridge.lock, logs/bridge.log
//	ssh/id_ed25519, ssh/known_hosts, ssh/config
//	approvals/SHA256              plan approvals
//
// stateVersion is the sandbox.json format this airlock writes. A newer
// airlock reads every older version (stateMigrations; testdata/state holds
// one golden file per version and the schema of the current one); a file
// from a newer airlock is refused with its version.
const stateVersion = 1

// stateMigrations[i] turns a sandbox.json of version i+1 into version i+2
// (as a JSON object, before it is decoded), so a home written by an older
// airlock restores. A change of sandboxState's shape, or of anything it
// holds (the approved config.Sandbox is persisted as decoded), bumps
// stateVersion and appends one function here; TestStateGolden fails until
// both are done.
var stateMigrations = []func(obj map[string]json.RawMessage) error{}

// writeFileAtomic is the one atomic replace (fsx), under the name this
// package's files use.
var writeFileAtomic = fsx.WriteFileAtomic

// validName reports whether s is a usable sandbox name (also safe as a path element).
func validName(s string) bool { return config.ValidSandboxName(s) }

// sandboxState is what survives a bridge restart (sandbox.json).
type sandboxState struct {
	Version      int             `json:"version"`
	Name         string          `json:"name"`
	Backend      string          `json:"backend"`
	ConfigPath   string          `json:"configPath"`
	ConfigDir    string          `json:"configDir"`
	ConfigSHA256 string          `json:"configSha256"`
	WorkspaceDir string          `json:"workspaceDir,omitempty"`
	Mode         string          `json:"mode"`
	User         string          `json:"user"`
	Ports        []portState     `json:"ports,omitempty"`
	Config       *config.Sandbox `json:"config"` // the approved block, as decoded
	Created      time.Time       `json:"created"`
	// Applied is the review snapshot the last `airlock apply` brought back
	// ("" = none): rm refuses while the sandbox's work differs from it.
	Applied string `json:"applied,omitempty"`
	// Reviewed is the snapshot of the user's last `airlock review` ("" =
	// none): apply refuses a sandbox that changed since.
	Reviewed string `json:"reviewed,omitempty"`
}

type portState struct {
	Name  string `json:"name"`
	Guest int    `json:"guest"`
	Host  int    `json:"host"`
	Bind  string `json:"bind"`
}

type paths struct{ home string }

func (p paths) sock() string              { return filepath.Join(p.home, "bridge.sock") }
func (p paths) lock() string              { return filepath.Join(p.home, "bridge.lock") }
func (p paths) logFile() string           { return filepath.Join(p.home, "logs", "bridge.log") }
func (p paths) sandboxes() string         { return filepath.Join(p.home, "sandboxes") }
func (p paths) sandbox(n string) string   { return filepath.Join(p.home, "sandboxes", n) }
func (p paths) stateFile(n string) string { return filepath.Join(p.sandbox(n), "sandbox.json") }
func (p paths) hostKey(n string) string   { return filepath.Join(p.sandbox(n), "host_key") }
func (p paths) sshSock(n string) string   { return filepath.Join(p.sandbox(n), "ssh.sock") }
func (p paths) vmRoot(b string) string    { return filepath.Join(p.home, "vm", b) }
func (p paths) sshDir() string            { return filepath.Join(p.home, "ssh") }
func (p paths) userKey() string           { return filepath.Join(p.home, "ssh", "id_ed25519") }
func (p paths) knownHosts() string        { return filepath.Join(p.home, "ssh", "known_hosts") }
func (p paths) sshConfig() string         { return filepath.Join(p.home, "ssh", "config") }
func (p paths) approval(sha string) string {
	return filepath.Join(p.home, "approvals", sha)
}

// backendDir is backend b's working directory for sandbox n (vm.Spec.StateDir).
func (p paths) backendDir(b, n string) string { return filepath.Join(p.vmRoot(b), n) }

func loadState(file string) (*sandboxState, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || len(b) == 0 {
			return nil, fmt.Errorf("its sandbox.json is not valid JSON (%d bytes; truncated or damaged: %v)", len(b), err)
		}
		return nil, fmt.Errorf("its sandbox.json does not decode: %v", err)
	}
	var version int
	if v, ok := obj["version"]; ok {
		if err := json.Unmarshal(v, &version); err != nil {
			return nil, fmt.Errorf("its sandbox.json has a state version that is not a number (%s)", v)
		}
	}
	switch {
	case version > stateVersion:
		return nil, fmt.Errorf("its sandbox.json is state version %d, written by a newer airlock (this one reads versions 1 to %d)", version, stateVersion)
	case version < 1:
		return nil, fmt.Errorf("its sandbox.json has no state version (%d): not written by airlock", version)
	}
	for v := version; v < stateVersion; v++ {
		if err := stateMigrations[v-1](obj); err != nil {
			return nil, fmt.Errorf("its sandbox.json (state version %d) cannot be read as version %d: %v", v, v+1, err)
		}
	}
	if version < stateVersion {
		obj["version"] = json.RawMessage(strconv.Itoa(stateVersion))
		if b, err = json.Marshal(obj); err != nil {
			return nil, err
		}
	}
	var st sandboxState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("its sandbox.json does not decode: %v", err)
	}
	switch {
	case !validName(st.Name):
		return nil, fmt.Errorf("its sandbox.json names no valid sandbox (%q)", st.Name)
	case st.Config == nil:
		return nil, errors.New("its sandbox.json has no approved configuration")
	}
	return &st, nil
}

func saveState(file string, st *sandboxState) error {
	b, err := stateJSON(st)
	if err != nil {
		return err
	}
	return writeFileAtomic(file, b, 0o600)
}

// stateJSON is st as saveState writes it.
func stateJSON(st *sandboxState) ([]byte, error) {
	st.Version = stateVersion
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// fileSHA256 hashes a config file's bytes, the key approvals are pinned to.
func fileSHA256(path string) (string, []byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), b, nil
}

var shaRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

type approvalRecord struct {
	ConfigPath string    `json:"configPath"`
	SHA256     string    `json:"sha256"`               // the plan's digest (planDigest)
	FileSHA256 string    `json:"fileSha256,omitempty"` // the file's, when the plan's covers more
	Approved   time.Time `json:"approved"`
}

func (p paths) approved(sha string) bool {
	if !shaRE.MatchString(sha) {
		return false
	}
	_, err := os.Stat(p.approval(sha))
	return err == nil
}

func (p paths) approve(sha, fileSHA, configPath string) error {
	if !shaRE.MatchString(sha) {
		return errors.New("bad sha256")
	}
	if err := os.MkdirAll(filepath.Dir(p.approval(sha)), 0o700); err != nil {
		return err
	}
	rec := approvalRecord{ConfigPath: configPath, SHA256: sha, Approved: time.Now().UTC()}
	if fileSHA != sha {
		rec.FileSHA256 = fileSHA
	}
	b, _ := json.Marshal(rec)
	// Not synced: approved means the file exists, and one lost to a power
	// cut only asks again (every `up --yes` writes it, 2 fsyncs).
	return fsx.ReplaceFile(p.approval(sha), append(b, '\n'), 0o600)
}
