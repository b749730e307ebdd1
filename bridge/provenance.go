package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/review"
	"github.com/airlock-sandbox/airlock/internal/signer"
)

// Provenance: which environment ran a sandbox's work. The bridge records it
// each time a sandbox starts (RecordDir/provenance.json); review shows it and
// apply writes it as Airlock-* trailers on the commit it creates. Everything
// comes from the host's own records except the kernel release, which only
// the guest can tell (uname -r over the bridge's SSH connection).

// provenanceFeature records a sandbox's provenance when it starts; eg is
// the daemon's egress, whose policy it records.
func provenanceFeature(eg *egressFeature) *Feature {
	// Its hook only reads the guest (uname) and writes its own file: it
	// runs alongside review's baseline.
	return &Feature{Name: "provenance", StartedAside: true, Started: func(ctx context.Context, env Env, sb SandboxRef) error {
		return provenanceStarted(ctx, env, sb, eg)
	}}
}

// rootImager is implemented by backends that boot a root image (microvm).
type rootImager interface {
	RootImage(id string) (string, error)
}

const provenanceFile = "provenance.json"

func provenanceStarted(ctx context.Context, env Env, sb SandboxRef, eg *egressFeature) error {
	p, err := recordProvenance(ctx, env, sb, eg)
	if err != nil {
		env.Logger().Warn("provenance not recorded", "sandbox", sb.Name(), "err", err)
		return nil // provenance informs; it does not gate a start
	}
	if img := rootImagePath(sb); img != "" {
		go imageDigest(env.Home(), img) // warm the cache for review
	}
	b, _ := json.MarshalIndent(p, "", "  ")
	return writeFileAtomic(filepath.Join(sb.RecordDir(), provenanceFile), append(b, '\n'), 0o600)
}

// recordProvenance gathers what is known when the sandbox starts; eg is
// the daemon's egress, whose policy it records.
func recordProvenance(ctx context.Context, env Env, sb SandboxRef, eg *egressFeature) (*protocol.Provenance, error) {
	p := &protocol.Provenance{Accelerator: "none", Version: airlockVersion(), SignerKeys: []string{},
		Started: time.Now().UTC().Format(time.RFC3339)}
	p.Backend, p.Plan = sb.BackendName(), sb.ConfigSHA256()
	bs, err := sb.Backend().Status(ctx, sb.Name())
	if err == nil && bs.Accelerator != "" {
		p.Accelerator = bs.Accelerator // the backend's field, never its note
	}
	// The kernel from the backend where it knows it (a namespace sandbox
	// runs on the host's), else as the guest reports it.
	p.Kernel = oneLine(bs.Kernel, 100)
	if p.Kernel == "" {
		kctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if out, err := (&sshGuest{sb: sb}).Run(kctx, "uname -r"); err == nil {
			p.Kernel = oneLine(string(out), 100)
		} else {
			env.Logger().Warn("provenance: guest kernel release unknown", "sandbox", sb.Name(), "err", err)
		}
	}
	pol, err := policyDigest(ctx, env, eg, sb.Name())
	if err != nil {
		return nil, err
	}
	p.Policy = pol
	return p, nil
}

// policyDigest hashes the effective egress policy as `airlock policy NAME
// --json` shows it, in its canonical form (protocol.PolicyListResult's
// Canonical: fixed words, not the JSON of a Go type).
func policyDigest(ctx context.Context, env Env, eg *egressFeature, name string) (string, error) {
	raw, _ := json.Marshal(protocol.PolicyParams{Name: name})
	v, err := eg.policyList(ctx, env, raw)
	if err != nil {
		return "", fmt.Errorf("egress policy: %w", err)
	}
	res, ok := v.(protocol.PolicyListResult)
	if !ok {
		return "", errors.New("egress policy: unexpected result")
	}
	return res.Digest(), nil
}

// provenance returns the sandbox's record completed with what is only known
// later: the root image digest and the signer keys used since the start.
func provenance(ctx context.Context, env Env, sb SandboxRef, eg *egressFeature) (*protocol.Provenance, error) {
	var p protocol.Provenance
	b, err := os.ReadFile(filepath.Join(sb.RecordDir(), provenanceFile))
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	if err != nil {
		rec, rerr := recordProvenance(ctx, env, sb, eg) // started before provenance existed
		if rerr != nil {
			return nil, rerr
		}
		rec.Started = ""
		p = *rec
	}
	if img := rootImagePath(sb); img != "" {
		if d, err := imageDigest(env.Home(), img); err == nil {
			p.Image = "sha256:" + d
		} else {
			env.Logger().Warn("provenance: image digest", "sandbox", sb.Name(), "err", err)
		}
	}
	since := sb.Created().UTC().Format(time.RFC3339)
	p.SignerKeys = signerKeysUsed(env.Home(), sb.Name(), since)
	return &p, nil
}

func rootImagePath(sb SandboxRef) string {
	ri, ok := sb.Backend().(rootImager)
	if !ok {
		return ""
	}
	img, err := ri.RootImage(sb.Name())
	if err != nil {
		return ""
	}
	return img
}

// signerKeysUsed lists the keys the signer audit log says signed for name
// since the sandbox was created (RFC 3339 UTC; "" = the whole log).
func signerKeysUsed(home, name, since string) []string {
	keys := []string{}
	f, err := os.Open(signer.AuditPath(home))
	if err != nil {
		return keys
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	seen := map[string]bool{}
	for {
		var e signer.AuditEntry
		if err := dec.Decode(&e); err != nil {
			break // end of log or a torn tail
		}
		if e.Event == signer.EventAllow && e.Sandbox == name && e.Key != "" && !seen[e.Key] && e.Time >= since {
			seen[e.Key] = true
			keys = append(keys, e.Key)
		}
	}
	sort.Strings(keys)
	return keys
}

// ProvenanceTrailers renders p as the trailers apply writes.
func ProvenanceTrailers(name string, p *protocol.Provenance) []review.Trailer {
	return []review.Trailer{
		{Key: "Airlock-Sandbox", Value: name},
		{Key: "Airlock-Backend", Value: p.Backend + " (" + p.Accelerator + ")"},
		{Key: "Airlock-Kernel", Value: p.Kernel},
		{Key: "Airlock-Image", Value: p.Image},
		{Key: "Airlock-Plan", Value: "sha256:" + p.Plan},
		{Key: "Airlock-Policy", Value: "sha256:" + p.Policy},
		{Key: "Airlock-Version", Value: p.Version},
	}
}

func airlockVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && (v == "" || v == "(devel)") {
			v = "devel+" + s.Value
		}
	}
	if v == "" {
		v = "(devel)"
	}
	return v
}

func oneLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > max {
		s = s[:max]
	}
	return s
}

// imageDigest returns the SHA-256 of a root image, cached by path, size and
// modification time in $AIRLOCK_HOME/cache/image-digests.json (images are
// written once and made read-only; a rebuilt image gets a new mtime).
func imageDigest(home, img string) (string, error) {
	imageDigestMu.Lock()
	defer imageDigestMu.Unlock()
	fi, err := os.Stat(img)
	if err != nil {
		return "", err
	}
	key := fmt.Sprintf("%s|%d|%d", img, fi.Size(), fi.ModTime().UnixNano())
	cacheFile := filepath.Join(home, "cache", "image-digests.json")
	cache := map[string]string{}
	if b, err := os.ReadFile(cacheFile); err == nil {
		json.Unmarshal(b, &cache)
	}
	if d, ok := cache[key]; ok && len(d) == 64 {
		return d, nil
	}
	f, err := os.Open(img)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", img, err)
	}
	d := hex.EncodeToString(h.Sum(nil))
	for k := range cache {
		if strings.HasPrefix(k, img+"|") {
			delete(cache, k)
		}
	}
	cache[key] = d
	if b, err := json.Marshal(cache); err == nil && os.MkdirAll(filepath.Dir(cacheFile), 0o700) == nil {
		writeFileAtomic(cacheFile, b, 0o600)
	}
	return d, nil
}

var imageDigestMu sync.Mutex
