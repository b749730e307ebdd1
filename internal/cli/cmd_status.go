package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/guestout"
)

// status, logs and version: what a sandbox is, what it logged, what built it.

func init() {
	Register(&Command{Name: "status", Usage: "status [--json] NAME",
		Summary: "one sandbox: backend, accelerator, workspace, limits enforced or not and why, notes, ports, proxy, signer, last review", Run: runStatus})
	Register(&Command{Name: "logs", Usage: "logs [-n N] NAME",
		Summary: "the bridge log's lines about one sandbox", Run: runLogs})
	Register(&Command{Name: "version", Usage: "version",
		Summary: "airlock's version, source revision and Go version", Run: runVersion})
}

// findSandbox lists the bridge's sandboxes and returns name's entry.
func findSandbox(e *Env, name string) (*protocol.Sandbox, error) {
	var list protocol.ListResult
	if err := call(e, protocol.MethodList, struct{}{}, &list); err != nil {
		return nil, err
	}
	for i := range list.Sandboxes {
		if list.Sandboxes[i].Name == name {
			return &list.Sandboxes[i], nil
		}
	}
	return nil, fmt.Errorf("no sandbox named %s (see `airlock ls`)", name)
}

func runStatus(e *Env, args []string) error {
	fs := newFlags("status", e)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return Usagef("want exactly one sandbox name")
	}
	sb, err := findSandbox(e, pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sb)
	}
	_, err = io.WriteString(e.Stdout, statusText(sb))
	return err
}

// statusText renders a sandbox for a person.
func statusText(sb *protocol.Sandbox) string {
	var b strings.Builder
	// Every row is cleaned here: notes and names come from the backend,
	// and some (the kubernetes probe's) from inside the sandbox.
	row := func(k, format string, a ...any) {
		fmt.Fprintf(&b, "%-14s%s\n", k+":", guestout.Clean(fmt.Sprintf(format, a...)))
	}
	row("sandbox", "%s (%s)", sb.Name, sb.State)
	row("backend", "%s", sb.Backend)
	if sb.State == "broken" {
		row("note", "%s", sb.Note)
		return b.String()
	}
	notes := splitNotes(sb.Note)
	switch sb.Backend {
	case "microvm":
		if strings.HasPrefix(sb.Note, "TCG") {
			row("accelerator", "tcg: software emulation, no usable KVM (20-40x slower)")
		} else {
			row("accelerator", "kvm")
		}
	case "namespace":
		row("accelerator", "none: the sandbox shares the host kernel")
	}
	ws := sb.Mode
	if sb.WorkspaceDir != "" {
		ws += " of " + sb.WorkspaceDir
	}
	row("workspace", "%s at %s", ws, orDash(sb.Target))
	if l := sb.Limits; l != nil {
		unenforced, _ := limitNotes(notes)
		for _, lim := range []struct{ name, want string }{
			{"cpu", fmt.Sprintf("%d CPUs", l.CPUs)}, {"memory", config.FormatSize(l.Memory)},
			{"pids", fmt.Sprintf("%d processes", l.Pids)}, {"disk", config.FormatSize(l.Disk)},
		} {
			state := "enforced"
			if why, ok := unenforced[lim.name]; ok {
				state = "NOT enforced: " + why
				if r, ok := strings.CutPrefix(why, unverifiedMark); ok {
					state = "unverified: " + r
				}
			}
			row("limit "+lim.name, "%s, %s", lim.want, state)
		}
	}
	_, other := limitNotes(notes)
	for _, n := range other {
		row("note", "%s", n)
	}
	if len(sb.Ports) == 0 {
		row("ports", "none")
	}
	for _, p := range sb.Ports {
		listen := "nothing listens inside yet"
		if p.Listening {
			listen = "listening"
		}
		row("port", "%s %s:%d -> %d (%s)", p.Name, p.Bind, p.Host, p.Guest, listen)
	}
	row("proxy", "egress proxy at 127.0.0.1:3128 inside, preset %s (`airlock policy ls %s`)", orDash(sb.Preset), sb.Name)
	if sb.Signer > 0 {
		row("signer", "%d %s at 127.0.0.1:8550 inside (`airlock approvals`)", sb.Signer, plural(sb.Signer, "key", "keys"))
	} else {
		row("signer", "none")
	}
	switch {
	case sb.Reviewed == "":
		row("review", "never reviewed (`airlock review %s`)", sb.Name)
	case sb.Applied == sb.Reviewed:
		row("review", "last review %s, applied", short12(sb.Reviewed))
	default:
		row("review", "last review %s, not applied", short12(sb.Reviewed))
	}
	if sb.Created != "" {
		row("created", "%s", sb.Created)
	}
	return b.String()
}

// splitNotes splits a backend's "; "-joined notes, not inside parentheses
// (a note's reason may hold "; " itself).
func splitNotes(note string) []string {
	var out []string
	depth, start := 0, 0
	add := func(n string) {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	for i := 0; i < len(note); i++ {
		switch note[i] {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case ';':
			if depth == 0 && strings.HasPrefix(note[i:], "; ") {
				add(note[start:i])
				start = i + 2
			}
		}
	}
	add(note[start:])
	return out
}

var noLimitRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^no (cpu|memory|pids) limit \((.*)\)$`) })

// unverifiedMark opens limitNotes' reason for a limit only the sandbox
// itself reports on ("disk limit unverified (...)", the kubernetes probe):
// status shows it as unverified, up does not count it as not enforced.
const unverifiedMark = "\x00unverified:"

// limitNotes sorts a backend's notes into limits not enforced (by
// controller: why) and the rest.
func limitNotes(notes []string) (map[string]string, []string) {
	un := map[string]string{}
	var other []string
	for _, n := range notes {
		switch {
		case noLimitRE().MatchString(n):
			m := noLimitRE().FindStringSubmatch(n)
			un[m[1]] = m[2]
		case strings.HasPrefix(n, "disk limit not enforced"):
			un["disk"] = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(n, "disk limit not enforced"), " ("), ")")
		case strings.HasPrefix(n, "disk limit unverified"):
			un["disk"] = unverifiedMark + strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(n, "disk limit unverified"), " ("), ")")
		case strings.HasPrefix(n, "cgroup limits not applied"):
			for _, c := range []string{"cpu", "memory", "pids"} {
				un[c] = strings.TrimPrefix(n, "cgroup limits not applied: ")
			}
		default:
			other = append(other, n)
		}
	}
	return un, other
}

// unenforcedLine is up's one line when a requested limit is not enforced
// ("" when all are).
func unenforcedLine(sb protocol.Sandbox) string {
	un, _ := limitNotes(splitNotes(sb.Note))
	var names []string
	for _, c := range []string{"cpu", "memory", "pids", "disk"} {
		if why, ok := un[c]; ok && !strings.HasPrefix(why, unverifiedMark) {
			names = append(names, c)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("airlock: %s: %s %s not enforced on this host (`airlock status %s` says why)",
		sb.Name, strings.Join(names, ", "), plural(len(names), "limit is", "limits are"), sb.Name)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func short12(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func runLogs(e *Env, args []string) error {
	fs := newFlags("logs", e)
	n := fs.Int("n", 0, "only the last `N` lines (0: all)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return Usagef("want exactly one sandbox name")
	}
	if *n < 0 {
		return Usagef("-n wants a number of lines, 0 or more")
	}
	name := pos[0]
	if !config.ValidSandboxName(name) {
		return fmt.Errorf("%q is not a sandbox name", name)
	}
	path := filepath.Join(e.Home(), "logs", "bridge.log")
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("no bridge log at %s: %w", path, cfgUnwrapPath(err))
	}
	defer f.Close()
	re := regexp.MustCompile(`(^| )(sandbox|name)=` + regexp.QuoteMeta(name) + `( |$)`)
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if l := sc.Text(); re.MatchString(l) {
			lines = append(lines, l)
			if *n > 0 && len(lines) > *n {
				lines = lines[1:]
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if len(lines) == 0 {
		fmt.Fprintf(e.Stderr, "airlock: %s has no lines about sandbox %s\n", path, name)
		return nil
	}
	for _, l := range lines {
		fmt.Fprintln(e.Stdout, safeText(l))
	}
	return nil
}

func runVersion(e *Env, args []string) error {
	fs := newFlags("version", e)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	v, rev, when, dirty := "(devel)", "", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	line := "airlock " + v
	if rev != "" {
		line += " " + short12(rev)
		if dirty {
			line += "+dirty"
		}
		if when != "" {
			line += " " + when
		}
	}
	fmt.Fprintf(e.Stdout, "%s %s %s/%s\n", line, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
