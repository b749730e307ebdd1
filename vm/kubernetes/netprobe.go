package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/guestout"
)

// Whether the deny-all NetworkPolicy is enforced: the API does not say (a
// NetworkPolicy has no status), so once per pod the backend looks from
// inside, over its provisioning SSH session, and keeps the verdict in the
// state dir (netprobe.json, keyed by the pod's UID):
//
//   - the pod has no interface but loopback: the network plugin gives pods
//     no network, so it enforces no policy either, and nothing leaves the
//     pod directly (the test cluster);
//   - a TCP connection to the API server (its service address and the
//     kubeconfig's) or to the node's kubelet is answered, accepted or
//     refused: packets got out, the policy is not enforced;
//   - every attempt timed out or found no route: enforced, as far as the
//     probe can tell (a firewall would look the same).
//
// The probe runs where the agent runs, so a compromised agent can answer
// it: every verdict says it is the sandbox's report (unverified), the
// answer is read up to maxProbeOutput bytes, and what is printed of it is
// cleaned of control and bidi characters (guestout.Clean). A probe from a
// sibling pod the bridge owns would be the agent's word no longer; it is
// not done yet (see doc.go).

// probeTimeout bounds each connection attempt inside the pod.
const probeTimeout = 2 * time.Second

// maxProbeOutput bounds what the bridge reads of the probe's answer.
const maxProbeOutput = 64 << 10

// unverified opens every verdict: the probe runs over SSH in the agent's
// own pod, as the agent's uid (it asks for no rc file, guestout.NoRC, but an
// image's older sshd refuses and the agent's ~/.bashrc runs first, and the
// agent can ptrace it anyway), so its answer is the agent's word.
const unverified = "reported by the sandbox (unverified: the probe runs in the agent's own pod, which can answer it): "

type probeResult struct {
	PodUID  string
	Verdict string
	Disk    string // the disk limit note ("" when the claim's size holds)
}

func (b *Backend) probePath(id string) string { return filepath.Join(b.dir(id), "netprobe.json") }

// probeNotes are status's lines from inside the running pod uid: the
// NetworkPolicy's, and the disk limit's when the claim's storage does not
// hold it. The probe starts when there is no verdict for uid yet.
func (b *Backend) probeNotes(st *state, uid, nodeIP string) []string {
	name := objName(st.ID)
	if data, err := os.ReadFile(b.probePath(st.ID)); err == nil {
		var r probeResult
		if json.Unmarshal(data, &r) == nil && r.PodUID == uid && r.Verdict != "" {
			notes := []string{fmt.Sprintf("deny-all NetworkPolicy %s: %s", name, r.Verdict)}
			if r.Disk != "" {
				notes = append(notes, r.Disk)
			}
			return notes
		}
	}
	b.probeLater(st, uid, nodeIP)
	return []string{fmt.Sprintf("deny-all NetworkPolicy %s: whether it is enforced is being checked from inside the pod (ask again in a few seconds)", name)}
}

// probeLater runs the probe for pod uid in the background, once at a time
// per sandbox; Stop and Remove wait for it (probeWait).
func (b *Backend) probeLater(st *state, uid, nodeIP string) {
	b.probeMu.Lock()
	defer b.probeMu.Unlock()
	if b.probes == nil {
		b.probes = map[string]*probeRun{}
	}
	if _, busy := b.probes[st.ID]; busy {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	run := &probeRun{cancel: cancel, done: make(chan struct{})}
	b.probes[st.ID] = run
	go func() {
		defer close(run.done)
		defer cancel()
		out, err := b.probe(ctx, st, nodeIP)
		b.probeMu.Lock()
		defer b.probeMu.Unlock()
		delete(b.probes, st.ID)
		if err != nil || ctx.Err() != nil {
			return // stopped meanwhile, or no SSH: asked again at the next status
		}
		data, _ := json.Marshal(probeResult{PodUID: uid, Verdict: probeVerdict(out), Disk: diskNote(out, st.DiskBytes)})
		fsx.WriteFileAtomic(b.probePath(st.ID), data, 0o600)
	}()
}

type probeRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// probeWait cancels a running probe of id and waits for it to end.
func (b *Backend) probeWait(id string) {
	b.probeMu.Lock()
	run := b.probes[id]
	b.probeMu.Unlock()
	if run != nil {
		run.cancel()
		<-run.done
	}
}

// probe runs probeScript inside the pod and returns what it printed.
func (b *Backend) probe(ctx context.Context, st *state, nodeIP string) (string, error) {
	cl, err := b.provisionClient(ctx, st)
	if err != nil {
		return "", err
	}
	defer cl.Close()
	go func() { <-ctx.Done(); cl.Close() }()
	s, err := cl.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	// The answer is a few lines; past maxProbeOutput the session is closed
	// and nothing more is read (the agent can answer with anything).
	out := &guestout.Buffer{Max: maxProbeOutput, OnFull: func() { s.Close() }}
	s.Stdout = out
	guestout.NoRC(s)
	err = s.Run(probeScript(b.probeTargets(nodeIP), st.WorkspaceTarget))
	if out.Truncated() {
		return "", fmt.Errorf("probe: the answer exceeded %d bytes", maxProbeOutput)
	}
	if err != nil {
		return "", fmt.Errorf("probe: %w", err)
	}
	return out.String(), nil
}

// probeTargets are host:port pairs a pod reaches on a cluster whose plugin
// does not enforce the policy: the API server as the kubeconfig names it,
// and the node's kubelet. The API server's service address is added by
// the script from the pod's environment.
func (b *Backend) probeTargets(nodeIP string) []string {
	var ts []string
	if u, err := url.Parse(b.cfg.Host); err == nil && u.Hostname() != "" {
		port := u.Port()
		if port == "" {
			port = "443"
		}
		if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
			ts = append(ts, net.JoinHostPort(u.Hostname(), port))
		}
	}
	if nodeIP != "" {
		ts = append(ts, net.JoinHostPort(nodeIP, "10250"))
	}
	return ts
}

// probeScript lists the pod's interfaces ("if NAME" lines), tries each
// target at once with bash's /dev/tcp ("try TARGET RESULT" lines: open,
// refused, timeout, unreachable or the error), and prints the size of the
// workspace's file system ("df KIB").
func probeScript(targets []string, workspace string) string {
	var q []string
	for _, t := range targets {
		q = append(q, shellQuote(t))
	}
	return `for i in /sys/class/net/*; do echo "if ${i##*/}"; done
[ -n "${KUBERNETES_SERVICE_HOST:-}" ] && set -- "$KUBERNETES_SERVICE_HOST:${KUBERNETES_SERVICE_PORT:-443}" ` + strings.Join(q, " ") + ` || set -- ` + strings.Join(q, " ") + `
for t in "$@"; do (
  h=${t%:*}; p=${t##*:}; h=${h#\\[}; h=${h%\\]}
  e=$(timeout ` + fmt.Sprint(int(probeTimeout/time.Second)) + ` bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$h" "$p" 2>&1); rc=$?
  case "$rc:$e" in
  0:*) r=open ;; 124:*) r=timeout ;; *refused*) r=refused ;; *nreachable*|*"No route"*) r=unreachable ;; *) r="error $rc $e" ;;
  esac
  echo "try $t $r" ) &
done
wait
( set -- $(df -Pk ` + shellQuote(workspace) + ` | tail -n 1); echo "df $2" )
`
}

// diskNote: the claim holds home and workspace; when the file system
// under the workspace is much larger than the claim asked for, its
// storage does not enforce the claim's size (local volumes, hostPath).
func diskNote(out string, diskBytes int64) string {
	for _, line := range strings.Split(out, "\n") {
		var kib int64
		if _, err := fmt.Sscanf(line, "df %d", &kib); err != nil || diskBytes <= 0 {
			continue
		}
		if kib*1024 > diskBytes*5/4 {
			return fmt.Sprintf("disk limit not enforced (home and workspace are on a %.0f GiB file system the claim's storage does not size; /tmp, /var/tmp and logs are held to it by the pod's ephemeral-storage limit)", float64(kib)/(1<<20))
		}
		return fmt.Sprintf("disk limit unverified (the sandbox reports a %.1f GiB file system under the workspace; the probe runs in the agent's own pod, which can answer it)", float64(kib)/(1<<20))
	}
	return ""
}

// probeVerdict reads the script's output.
func probeVerdict(out string) string {
	var ifs, through, blocked []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "if" && f[1] != "lo":
			ifs = append(ifs, f[1])
		case len(f) >= 3 && f[0] == "try":
			switch f[2] {
			case "open", "refused":
				through = append(through, f[1]+" ("+f[2]+")")
			default:
				blocked = append(blocked, f[1]+" ("+strings.Join(f[2:], " ")+")")
			}
		}
	}
	return guestout.Clean(unverified + verdictText(ifs, through, blocked))
}

// verdictText is the verdict on what the probe printed.
func verdictText(ifs, through, blocked []string) string {
	switch {
	case len(ifs) == 0:
		return "not enforced by this cluster's network plugin, which gives the pod no interface but loopback (so nothing leaves the pod directly either)"
	case len(through) > 0:
		return "NOT enforced by this cluster's network plugin: from inside the pod a connection to " + strings.Join(through, ", ") + " got an answer"
	case len(blocked) > 0:
		return "enforced, as far as a probe can tell: from inside the pod " + strings.Join(blocked, ", ") + " got no answer"
	}
	return "unknown: the pod has a network (" + strings.Join(ifs, ", ") + ") but there was nothing to try to reach"
}
