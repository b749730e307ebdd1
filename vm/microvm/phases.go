package microvm

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Phase is one named step of a boot or resume with its duration.
type Phase struct {
	Name string        `json:"name"`
	Dur  time.Duration `json:"dur"`
}

// Phases is the breakdown of the last Start of a sandbox (kept in its
// run.json): host steps timed on the host, guest steps from the
// "airlock-phase NAME UPTIME" lines the guest's init writes to the console.
type Phases []Phase

func (p Phases) String() string {
	var b strings.Builder
	for i, ph := range p {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s=%v", ph.Name, ph.Dur.Round(time.Millisecond))
	}
	return b.String()
}

// guestPhase is one console marker: the guest's uptime when a step ended.
type guestPhase struct {
	name   string
	uptime time.Duration
}

// maxPhaseLines bounds what is read from the (guest-written, untrusted)
// console log: the markers come early, so 64 KiB or 64 markers suffice.
const (
	maxConsoleRead = 64 << 10
	maxPhaseLines  = 64
)

// parsePhases reads the guest's phase markers from a console log. The log
// is written by the guest, so anything malformed is skipped, names are
// limited to [a-z_] and at most 32 bytes, and uptimes must not go backwards.
func parsePhases(r io.Reader) []guestPhase {
	var out []guestPhase
	sc := bufio.NewScanner(io.LimitReader(r, maxConsoleRead))
	sc.Buffer(make([]byte, 4096), 4096)
	for sc.Scan() && len(out) < maxPhaseLines {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || f[0] != "airlock-phase" || !phaseName(f[1]) {
			continue
		}
		s, err := strconv.ParseFloat(f[2], 64)
		if err != nil || !(s >= 0 && s <= 3600) { // also refuses NaN
			continue
		}
		up := time.Duration(s * float64(time.Second))
		if len(out) > 0 && up < out[len(out)-1].uptime {
			continue
		}
		out = append(out, guestPhase{f[1], up})
	}
	return out
}

func phaseName(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	return true
}

// guestPhaseNames maps the init's step names to the breakdown's names.
var guestPhaseNames = map[string]string{
	"mount_early_filesystems": "kernel",
	"load_modules":            "modules",
	"mount_root":              "root mount",
	"mount_workspace":         "workspace",
	"mount_shares":            "shares",
	"switch_root":             "switch root",
	"write_files":             "files",
	"configure_network":       "network",
	"sshd":                    "sshd ready",
}

// bootPhases combines host timings with the guest's markers. prep is the
// host work before qemu, qemuUp the time qemu -daemonize took, total the
// time from qemu's start to the SSH banner; what the guest phases do not
// cover of total is "banner wait" (qemu set-up before the guest clock
// starts, the forward, and the host's polling).
func bootPhases(prep, qemuUp, total time.Duration, guest []guestPhase) Phases {
	p := Phases{{"host prep", prep}, {"qemu start", qemuUp}}
	var last time.Duration
	for _, g := range guest {
		name := guestPhaseNames[g.name]
		if name == "" {
			name = g.name
		}
		p = append(p, Phase{name, g.uptime - last})
		last = g.uptime
	}
	if rest := total - qemuUp - last; rest > 0 {
		p = append(p, Phase{"banner wait", rest})
	}
	return p
}

func readPhases(dir string) []guestPhase {
	f, err := os.Open(filepath.Join(dir, "console.log"))
	if err != nil {
		return nil
	}
	defer f.Close()
	return parsePhases(f)
}
