package review

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The quarantine is a bare repository in the sandbox's state dir
// (StateDir/review/quarantine.git). Everything captured from the sandbox —
// snapshot commits, the agent's commits, their trees and blobs — lands
// there, never in the host repository: review, diff and the background base
// fetch only write to it. It borrows the host repository's objects read-only
// through objects/info/alternates (git never writes to an alternate), so a
// fetch from the sandbox transfers only what the agent made. Apply is the
// one step that writes to the host repository: it fetches the reviewed
// commit from the quarantine and creates the branch. Removing the sandbox
// removes its state dir and with it every captured object.

func (t *Target) quarantine() string { return filepath.Join(t.dir(), "quarantine.git") }

// qGit is git on the quarantine repository.
func (t *Target) qGit() gitCmd {
	env := append([]string{"GIT_DIR=" + t.quarantine()}, t.FetchEnv...)
	return gitCmd{dir: t.dir(), env: env}
}

// repoGit is read-only git on the host repository (rev-parse, object format).
func (t *Target) repoGit() gitCmd { return gitCmd{dir: t.Repo} }

// hostObjects returns the host repository's object directory, or "" when
// Repo is not (the top of) a git repository.
func (t *Target) hostObjects(ctx context.Context) string {
	out, err := t.repoGit().run(ctx, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return ""
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "objects")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	return dir
}

// ensureQuarantine creates the quarantine repository on first use.
func (t *Target) ensureQuarantine(ctx context.Context) error {
	q := t.quarantine()
	if _, err := os.Stat(filepath.Join(q, "HEAD")); err == nil {
		return nil
	}
	if err := os.MkdirAll(t.dir(), 0o700); err != nil {
		return err
	}
	format := "sha1"
	if out, err := t.repoGit().run(ctx, "rev-parse", "--show-object-format"); err == nil && strings.TrimSpace(string(out)) == "sha256" {
		format = "sha256"
	}
	tmp := q + ".tmp"
	os.RemoveAll(tmp)
	g := gitCmd{env: []string{"GIT_CONFIG_GLOBAL=/dev/null"}}
	if _, err := g.run(ctx, "init", "-q", "--bare", "--template=", "--object-format="+format, tmp); err != nil {
		return fmt.Errorf("create the quarantine repository: %w", err)
	}
	if objs := t.hostObjects(ctx); objs != "" {
		if err := os.MkdirAll(filepath.Join(tmp, "objects", "info"), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, "objects", "info", "alternates"), []byte(objs+"\n"), 0o600); err != nil {
			return err
		}
	}
	return os.Rename(tmp, q)
}

// applyToHost fetches commit from the quarantine into the host repository
// as refs/heads/branch (which must not exist). This is the only write to
// the host repository; hooks are off (package hostgit).
func (t *Target) applyToHost(ctx context.Context, commit, branch string) error {
	const tmpRef = "refs/airlock/apply"
	if _, err := t.qGit().run(ctx, "update-ref", tmpRef, commit); err != nil {
		return fmt.Errorf("quarantine: %w", err)
	}
	args := []string{"-c", "fetch.fsckObjects=true", "-c", "transfer.fsckObjects=true",
		"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--no-auto-gc",
		t.quarantine(), tmpRef + ":refs/heads/" + branch}
	if _, err := (gitCmd{dir: t.Repo}).run(ctx, args...); err != nil {
		return fmt.Errorf("create branch %s: %w", branch, err)
	}
	got, err := t.repoGit().run(ctx, "rev-parse", "-q", "--verify", "refs/heads/"+branch)
	if err != nil || strings.TrimSpace(string(got)) != commit {
		return errors.New("create branch " + branch + ": the branch does not point at the reviewed commit")
	}
	return nil
}
