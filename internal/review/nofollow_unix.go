package review

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// openNoFollow opens a file for reading, failing if it is a symlink.
func openNoFollow(p string) (io.ReadCloser, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	return os.NewFile(uintptr(fd), p), nil
}
