package kubernetes

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/guestout"
	"github.com/airlock-sandbox/airlock/internal/wsclone"
)

var errTarEnded = errors.New("tar -x in the sandbox ended")

// pushWorkspace fills the claim's workspace at first start (clone mode):
// the private clone every backend gives (package wsclone: the repository's
// objects and refs, its uncommitted and untracked-not-ignored files, no
// .git/config, hooks or ignored files of the host's, hidden paths left
// out), made in the sandbox's state dir, as a tar stream into `tar -x`
// over an SSH session, as the agent; the clone is removed after. The
// session authenticates with the sandbox's provisioning key (made at
// Create, kept in the state dir) and pins the sandbox's host key.
func (b *Backend) pushWorkspace(ctx context.Context, st *state) error {
	if st.WorkspaceSource == "" {
		return errNoSource
	}
	cl, err := b.provisionClient(ctx, st)
	if err != nil {
		return err
	}
	defer cl.Close()
	s, err := cl.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	pr, pw := io.Pipe()
	s.Stdin = pr
	stderr := guestout.Buffer{Max: 4096} // the agent's word: bounded, cleaned
	s.Stderr = &stderr
	tarErr := make(chan error, 1)
	go func() {
		err := workspaceTar(ctx, pw, st.WorkspaceSource, b.dir(st.ID), st.Hide)
		pw.CloseWithError(err)
		tarErr <- err
	}()
	runErr := s.Run("tar -x --no-same-owner -f - -C " + shellQuote(st.WorkspaceTarget))
	pr.CloseWithError(errTarEnded) // unblocks the writer if tar -x stopped reading
	if err := <-tarErr; err != nil && !errors.Is(err, errTarEnded) {
		return fmt.Errorf("workspace clone: %w", err)
	}
	if runErr != nil {
		return fmt.Errorf("tar -x in the sandbox: %v: %s", runErr, guestout.Clean(string(bytes.TrimSpace(stderr.Bytes()))))
	}
	return nil
}

// workspaceTar writes the private clone of src (package wsclone) to w as
// a tar stream: made in dir/clone.tmp, removed after.
func workspaceTar(ctx context.Context, w io.Writer, src, dir string, hide []string) error {
	clone := filepath.Join(dir, "clone.tmp")
	os.RemoveAll(clone) // left by a push that was killed
	defer os.RemoveAll(clone)
	if _, err := wsclone.Make(ctx, src, clone, hide); err != nil {
		return err
	}
	return tarFolder(w, clone, hide)
}

// provisionClient is an SSH client on the sandbox's sshd with the
// provisioning key.
func (b *Backend) provisionClient(ctx context.Context, st *state) (*ssh.Client, error) {
	keyPEM, err := os.ReadFile(filepath.Join(b.dir(st.ID), "provision_key"))
	if err != nil {
		return nil, err
	}
	signer, err := ssh.ParsePrivateKey(keyPEM)
	if err != nil {
		return nil, err
	}
	hostPub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(st.HostPub))
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: host key: %w", st.ID, err)
	}
	c, err := b.portForward(ctx, st.Namespace, objName(st.ID), sshPort)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	sc, chans, reqs, err := ssh.NewClientConn(c, st.ID, &ssh.ClientConfig{
		User: "agent", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}, HostKeyCallback: ssh.FixedHostKey(hostPub),
	})
	if err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return ssh.NewClient(sc, chans, reqs), nil
}

// tarFolder writes root's tree (regular files, directories, symlinks)
// minus hidden paths and .git/hooks. pushWorkspace gives it the private
// clone, never the host folder itself.
func tarFolder(w io.Writer, root string, hide []string) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		skip := rel == ".git/hooks"
		for _, g := range hide {
			if config.MatchGlob(g, rel) {
				skip = true
			}
		}
		if skip {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		case fi.IsDir(), fi.Mode().IsRegular():
		default:
			return nil
		}
		h, err := tar.FileInfoHeader(fi, link)
		if err != nil {
			return err
		}
		h.Name, h.Uid, h.Gid, h.Uname, h.Gname = rel, 0, 0, "", ""
		if fi.IsDir() {
			h.Name += "/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, f)
			f.Close()
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

func shellQuote(s string) string {
	return "'" + string(bytes.ReplaceAll([]byte(s), []byte("'"), []byte(`'\''`))) + "'"
}
