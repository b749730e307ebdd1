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

	corev1 "k8s.io/api/core/v1"

	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/guestout"
)

// Whether the deny-all NetworkPolicy is enforced: the API does not say (a
// NetworkPolicy has no status), so once per pod the backend looks, and
// keeps the verdict in the state dir (netprobe.json, keyed by the pod's
// UID). It looks from the probe pod (probepod.go): a short pod of the
// bridge's that the policy selects, on the sandbox's node, running no code
// of the agent's:
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
// The disk limit needs the claim, so its look (df under the workspace)
// still runs over SSH in the sandbox's own pod, as the agent's uid: that
// note says it is the sandbox's report (unverified). Both answers are read
// up to maxProbeOutput bytes, and what is printed of them is cleaned of
// control and bidi characters (guestout.Clean).

// probeTimeout bounds each connection attempt inside the probe pod.
const probeTimeout = 2 * time.Second

// probeRunTimeout bounds one probe: the probe pod's creation, start and
// deletion, and the SSH df beside it.
const probeRunTimeout = probePodDeadline + 30*time.Second

// maxProbeOutput bounds what the bridge reads of a probe's answer.
const maxProbeOutput = 64 << 10

type probeResult struct {
	PodUID  string
	Verdict string
	Disk    string // the disk limit note ("" when the claim's size holds)
	PodMS   int64  // how long the probe pod took, created to deleted
}

func (b *Backend) probePath(id string) string { return filepath.Join(b.dir(id), "netprobe.json") }

// probeNotes are status's lines for the running pod: the NetworkPolicy's,
// and the disk limit's when the claim's storage does not hold it. The
// probe starts when there is no verdict for the pod's UID yet.
func (b *Backend) probeNotes(st *state, pod *corev1.Pod) []string {
	name := objName(st.ID)
	uid := string(pod.UID)
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
	last := b.probeLater(st, uid, pod.Spec.NodeName, pod.Status.HostIP)
	if last != "" {
		last = " (the last attempt: " + last + ")"
	}
	return []string{fmt.Sprintf("deny-all NetworkPolicy %s: whether it is enforced is being checked from pod %s (ask again in a few seconds)%s", name, probeName(st.ID), last)}
}

// probeLater runs the probes for pod uid in the background, once at a time
// per sandbox; Stop and Remove wait for them (probeWait). It returns the
// last failed attempt's error, if any.
func (b *Backend) probeLater(st *state, uid, node, nodeIP string) string {
	b.probeMu.Lock()
	defer b.probeMu.Unlock()
	if b.probes == nil {
		b.probes = map[string]*probeRun{}
	}
	if run, busy := b.probes[st.ID]; busy {
		return run.lastErr
	}
	last := b.probeErrs[st.ID]
	ctx, cancel := context.WithTimeout(context.Background(), probeRunTimeout)
	run := &probeRun{cancel: cancel, done: make(chan struct{}), lastErr: last}
	b.probes[st.ID] = run
	go func() {
		defer close(run.done)
		defer cancel()
		r, err := b.probeBoth(ctx, st, node, nodeIP)
		b.probeMu.Lock()
		defer b.probeMu.Unlock()
		delete(b.probes, st.ID)
		if ctx.Err() != nil && err == nil {
			err = ctx.Err()
		}
		if err != nil { // stopped meanwhile, or no SSH, or the pod failed: asked again at the next status
			if b.probeErrs == nil {
				b.probeErrs = map[string]string{}
			}
			b.probeErrs[st.ID] = guestout.Clean(err.Error())
			return
		}
		delete(b.probeErrs, st.ID)
		r.PodUID = uid
		data, _ := json.Marshal(r)
		fsx.WriteFileAtomic(b.probePath(st.ID), data, 0o600)
	}()
	return last
}

// probeBoth runs the probe pod and the SSH df at once.
func (b *Backend) probeBoth(ctx context.Context, st *state, node, nodeIP string) (probeResult, error) {
	var df string
	var dfErr error
	dfDone := make(chan struct{})
	go func() {
		defer close(dfDone)
		df, dfErr = b.probe(ctx, st)
	}()
	t0 := time.Now()
	out, err := b.runProbePod(ctx, st, node, b.probeTargets(nodeIP))
	took := time.Since(t0)
	<-dfDone
	if err != nil {
		return probeResult{}, err
	}
	if dfErr != nil {
		return probeResult{}, dfErr
	}
	return probeResult{Verdict: probeVerdict(out, probeName(st.ID)), Disk: diskNote(df, st.DiskBytes), PodMS: took.Milliseconds()}, nil
}

type probeRun struct {
	cancel  context.CancelFunc
	done    chan struct{}
	lastErr string
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

// probe runs dfScript inside the sandbox's pod over SSH and returns what
// it printed.
func (b *Backend) probe(ctx context.Context, st *state) (string, error) {
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
	err = s.Run(dfScript(st.WorkspaceTarget))
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

// netScript (bash) lists the pod's interfaces ("if NAME" lines) and tries
// each target at once with bash's /dev/tcp ("try TARGET RESULT" lines:
// open, refused, timeout, unreachable or the error).
func netScript(targets []string) string {
	var q []string
	for _, t := range targets {
		q = append(q, shellQuote(t))
	}
	return `for i in /sys/class/net/*; do echo "if ${i##*/}"; done
[ -n "${KUBERNETES_SERVICE_HOST:-}" ] && set -- "$KUBERNETES_SERVICE_HOST:${KUBERNETES_SERVICE_PORT:-443}" ` + strings.Join(q, " ") + ` || set -- ` + strings.Join(q, " ") + `
for t in "$@"; do (
  h=${t%:*}; p=${t##*:}; h=${h#\\[}; h=${h%\\]}
  e=$(/usr/bin/timeout ` + fmt.Sprint(int(probeTimeout/time.Second)) + ` /bin/bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$h" "$p" 2>&1); rc=$?
  case "$rc:$e" in
  0:*) r=open ;; 124:*) r=timeout ;; *refused*) r=refused ;; *nreachable*|*"No route"*) r=unreachable ;; *) r="error $rc $e" ;;
  esac
  echo "try $t $r" ) &
done
wait
`
}

// dfScript prints the size of the workspace's file system ("df KIB").
func dfScript(workspace string) string {
	return `( set -- $(df -Pk ` + shellQuote(workspace) + ` | tail -n 1); echo "df $2" )
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

// probeVerdict reads netScript's output, printed in pod from.
func probeVerdict(out, from string) string {
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
	return guestout.Clean(verdictText(ifs, through, blocked, from))
}

// verdictText is the verdict on what the probe printed.
func verdictText(ifs, through, blocked []string, from string) string {
	from = "from pod " + from + " (the bridge's, selected by the policy, running none of the agent's code)"
	switch {
	case len(ifs) == 0:
		return "not enforced by this cluster's network plugin, which gives pods no interface but loopback (so nothing leaves the pod directly either; seen " + from + ")"
	case len(through) > 0:
		return "NOT enforced by this cluster's network plugin: " + from + " a connection to " + strings.Join(through, ", ") + " got an answer"
	case len(blocked) > 0:
		return "enforced, as far as a probe can tell: " + from + " " + strings.Join(blocked, ", ") + " got no answer"
	}
	return "unknown: pods have a network (" + strings.Join(ifs, ", ") + ", seen " + from + ") but there was nothing to try to reach"
}
