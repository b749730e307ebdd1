package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
)

// writeGuestFiles writes the spec's files for either init: each must be a
// clean absolute path under /etc, /run/airlock or home; those under home
// belong to the agent.
func writeGuestFiles(files []guestspec.File, home string, uid, gid int) error {
	for _, f := range files {
		own := home != "/" && guestspec.Under(f.Path, home) && f.Path != home
		if filepath.Clean(f.Path) != f.Path || !filepath.IsAbs(f.Path) ||
			!(guestspec.Under(f.Path, "/etc") || guestspec.Under(f.Path, "/run/airlock") || own) {
			return fmt.Errorf("file %s: outside /etc, /run/airlock and the home", f.Path)
		}
		if err := writeGuestFile(f, own, uid, gid); err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	return nil
}

// writeGuestFile writes f without following symlinks anywhere on its path,
// so a link the agent planted in its home cannot redirect the write.
func writeGuestFile(f guestspec.File, agentOwned bool, uid, gid int) error {
	dir, base := filepath.Split(f.Path)
	dfd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	for _, c := range strings.Split(strings.Trim(dir, "/"), "/") {
		if c == "" {
			continue
		}
		nfd, err := unix.Openat(dfd, c, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			if err = unix.Mkdirat(dfd, c, 0o755); err == nil {
				nfd, err = unix.Openat(dfd, c, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
				if err == nil && agentOwned {
					err = unix.Fchownat(nfd, "", uid, gid, unix.AT_EMPTY_PATH)
				}
			}
		}
		unix.Close(dfd)
		if err != nil {
			return err
		}
		dfd = nfd
	}
	defer unix.Close(dfd)
	if err := unix.Unlinkat(dfd, base, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return err
	}
	mode := f.Mode & 0o7777
	if mode == 0 {
		mode = 0o644
	}
	fd, err := unix.Openat(dfd, base, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	if err != nil {
		return err
	}
	file := os.NewFile(uintptr(fd), f.Path)
	defer file.Close()
	if _, err := file.Write(f.Data); err != nil {
		return err
	}
	if agentOwned {
		if err := file.Chown(uid, gid); err != nil {
			return err
		}
	}
	return file.Chmod(os.FileMode(mode))
}
