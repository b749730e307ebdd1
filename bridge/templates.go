package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/guestout"
	"github.com/airlock-sandbox/airlock/internal/templates"
	"github.com/airlock-sandbox/airlock/vm"
)

// The templates feature: `airlock save NAME TEMPLATE` streams the
// sandbox's home directory out with tar over the bridge's SSH connection;
// internal/templates filters the stream on the host (no credentials, hidden
// files, caches or workspace) without ever extracting it, and keeps it in
// $AIRLOCK_HOME/templates. A sandbox whose config names a template (or
// `up --template T`) gets that archive unpacked into its home by tar inside
// the guest, once, right after it is created and before `up` returns. On
// both backends that is the home directory (agents, npm/pip/go/cargo
// installs, agent state); a microVM's template also carries its root disk
// (vm/microvm SaveRootDisk: apt packages, /etc, the Docker engine's data),
// which a new microVM boots from with its home emptied for the archive.

// templatesFeature saves a sandbox's home as a template and starts new
// sandboxes from one.
func templatesFeature() *Feature {
	return &Feature{
		Name: "templates",
		Methods: map[string]Handler{
			protocol.MethodTemplateSave:   templateSave,
			protocol.MethodTemplateList:   templateList,
			protocol.MethodTemplateRemove: templateRemove,
		},
		Prepare: templatePrepare,
		Started: templateRestore,
	}
}

// guestHomeOf is the home of the sandbox's user inside.
func guestHomeOf(sb SandboxRef) string {
	u := config.DefaultUser // only for a sandbox without a config, which loadState refuses
	if c := sb.Config(); c != nil {
		u = c.User
	}
	return path.Join("/home", u)
}

func templateInfo(m templates.Meta) protocol.TemplateInfo {
	return protocol.TemplateInfo{Name: m.Name, Created: m.Created, Sandbox: m.Sandbox, Backend: m.Backend,
		Entries: m.Entries, Bytes: m.Bytes, Excluded: m.Excluded, DiskBytes: m.DiskBytes}
}

func templateSave(ctx context.Context, env Env, raw json.RawMessage) (any, error) {
	var p protocol.TemplateSaveParams
	sb, err := egressSandbox(env, raw, &p, func() string { return p.Name })
	if err != nil {
		return nil, err
	}
	if !templates.ValidName(p.Template) {
		return nil, &Error{Code: -32602, Message: fmt.Sprintf("invalid template name %q: 1 to 63 lower-case letters, digits, . _ and -, starting with a letter or digit", p.Template)}
	}
	if !sb.Running() {
		return nil, &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf("sandbox %s is not running (`airlock start %s`)", sb.Name(), sb.Name())}
	}
	c, err := sb.SSH(ctx)
	if err != nil {
		return nil, failf(protocol.CodeFailed, err, "could not reach sandbox %s over SSH", sb.Name())
	}
	s, err := c.NewSession()
	if err != nil {
		return nil, failf(protocol.CodeFailed, err, "could not open a session in sandbox %s", sb.Name())
	}
	defer s.Close()
	out, err := s.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errb := &guestout.Buffer{Max: 4096}
	s.Stderr = errb
	guestout.NoRC(s)
	home := guestHomeOf(sb)
	// --one-file-system keeps other mounts (a workspace placed under the
	// home, a share) out; the filter on the host decides the rest.
	if err := s.Start("tar -C " + shellQuote(home) + " --one-file-system -cf - ."); err != nil {
		return nil, failf(protocol.CodeFailed, err, "could not start tar in sandbox %s", sb.Name())
	}
	rules := templates.Rules{}
	if cfg := sb.Config(); cfg != nil {
		rules.Hide = append(rules.Hide, cfg.Workspace.Hide...)
	}
	meta := templates.Meta{Sandbox: sb.Name(), Backend: sb.BackendName()}
	t0 := time.Now()
	opts := templates.SaveOptions{Check: func() error {
		go io.Copy(io.Discard, out) // let tar finish writing its padding
		err := s.Wait()
		var xe *ssh.ExitError
		if errors.As(err, &xe) && xe.ExitStatus() == 1 {
			return nil // GNU tar: some files changed while being read
		}
		if err != nil {
			return fmt.Errorf("tar in the sandbox: %w: %s", err, flat(errb.String()))
		}
		return nil
	}}
	if ds, ok := sb.Backend().(rootDiskSaver); ok {
		opts.Disk = func(dst string) error { return ds.SaveRootDisk(ctx, sb.Name(), dst) }
	}
	m, err := templates.Open(env.Home()).Save(p.Template, out, rules, meta, opts)
	if err != nil {
		return nil, failf(protocol.CodeFailed, err, "save template %s: %s", p.Template, flat(err.Error()))
	}
	env.Logger().Info("template saved", "sandbox", sb.Name(), "template", p.Template, "entries", m.Entries,
		"bytes", m.Bytes, "excluded", len(m.Excluded), "took", time.Since(t0).Round(time.Millisecond))
	return templateInfo(m), nil
}

func templateList(ctx context.Context, env Env, _ json.RawMessage) (any, error) {
	ms, err := templates.Open(env.Home()).List()
	if err != nil {
		return nil, err
	}
	res := protocol.TemplateListResult{Templates: []protocol.TemplateInfo{}}
	for _, m := range ms {
		res.Templates = append(res.Templates, templateInfo(m))
	}
	return res, nil
}

func templateRemove(ctx context.Context, env Env, raw json.RawMessage) (any, error) {
	var p protocol.TemplateParams
	if err := decodeParams(protocol.MethodTemplateRemove, raw, &p); err != nil {
		return nil, err
	}
	if err := templates.Open(env.Home()).Remove(p.Template); err != nil {
		if errors.Is(err, templates.ErrNotFound) {
			return nil, &Error{Code: protocol.CodeNotFound, Message: flat(err.Error())}
		}
		return nil, &Error{Code: protocol.CodeFailed, Message: flat(err.Error())}
	}
	return struct{}{}, nil
}

// rootDiskSaver is implemented by backends whose sandboxes have a root
// disk a template can carry (microvm).
type rootDiskSaver interface {
	SaveRootDisk(ctx context.Context, id, dst string) error
}

// templatePrepare fails `up` before anything is created when the template
// does not exist, and starts a microVM from the template's root disk when
// it has one (a namespace sandbox takes the home alone).
func templatePrepare(ctx context.Context, env Env, sb SandboxRef, spec *vm.Spec) error {
	cfg := sb.Config()
	if cfg == nil || cfg.Template == "" {
		return nil
	}
	disk, err := templates.Open(env.Home()).Disk(cfg.Template)
	if err != nil {
		return &Error{Code: protocol.CodeFailed, Message: flat(err.Error())}
	}
	if disk == "" {
		return nil
	}
	if _, ok := sb.Backend().(rootDiskSaver); ok {
		spec.RootDisk = disk
		return nil
	}
	Warn(ctx, fmt.Sprintf("template %q also holds a microVM's root disk; this backend takes only its home", cfg.Template))
	return nil
}

// templateRestore unpacks the template into the new sandbox's home.
func templateRestore(ctx context.Context, env Env, sb SandboxRef) error {
	cfg := sb.Config()
	if cfg == nil || cfg.Template == "" {
		return nil
	}
	f, err := templates.Open(env.Home()).Archive(cfg.Template)
	if err != nil {
		return &Error{Code: protocol.CodeFailed, Message: flat(err.Error())}
	}
	defer f.Close()
	c, err := sb.SSH(ctx)
	if err != nil {
		return err
	}
	s, err := c.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	errb := &guestout.Buffer{Max: 4096}
	s.Stdin, s.Stderr = f, errb
	guestout.NoRC(s)
	t0 := time.Now()
	if err := s.Run("tar -C " + shellQuote(guestHomeOf(sb)) + " -xf -"); err != nil {
		return &Error{Code: protocol.CodeFailed, Message: fmt.Sprintf("unpack template %s in %s: %s", cfg.Template, sb.Name(), flat(errb.String()))}
	}
	env.Logger().Info("template restored", "sandbox", sb.Name(), "template", cfg.Template, "took", time.Since(t0).Round(time.Millisecond))
	return nil
}

func flat(s string) string { return egressOneLine(s) }
