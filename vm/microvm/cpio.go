package microvm

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// cpioWriter writes a "newc" (SVR4, no CRC) cpio archive, the format the
// Linux kernel unpacks as an initramfs.
type cpioWriter struct {
	w   io.Writer
	ino int
	err error
}

func (c *cpioWriter) header(name string, mode uint32, size int64, rdevMajor, rdevMinor int) {
	if c.err != nil {
		return
	}
	c.ino++
	nlink := 1
	if mode&syscall.S_IFMT == syscall.S_IFDIR {
		nlink = 2
	}
	hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		c.ino, mode, 0, 0, nlink, 0, size, 0, 0, rdevMajor, rdevMinor, len(name)+1, 0)
	_, c.err = io.WriteString(c.w, hdr+name+"\x00")
	c.pad(int64(len(hdr) + len(name) + 1))
}

func (c *cpioWriter) pad(n int64) {
	if c.err != nil || n%4 == 0 {
		return
	}
	_, c.err = c.w.Write(make([]byte, 4-n%4))
}

// Dir adds a directory.
func (c *cpioWriter) Dir(name string, perm uint32) { c.header(name, syscall.S_IFDIR|perm, 0, 0, 0) }

// CharDev adds a character device node.
func (c *cpioWriter) CharDev(name string, perm uint32, major, minor int) {
	c.header(name, syscall.S_IFCHR|perm, 0, major, minor)
}

// File adds a regular file with the given contents.
func (c *cpioWriter) File(name string, perm uint32, data []byte) {
	c.header(name, syscall.S_IFREG|perm, int64(len(data)), 0, 0)
	if c.err == nil {
		_, c.err = c.w.Write(data)
	}
	c.pad(int64(len(data)))
}

// HostFile adds a regular file copied from the host.
func (c *cpioWriter) HostFile(name string, perm uint32, path string) {
	if c.err != nil {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		c.err = err
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		c.err = err
		return
	}
	c.header(name, syscall.S_IFREG|perm, fi.Size(), 0, 0)
	if c.err == nil {
		var n int64
		n, c.err = io.Copy(c.w, f)
		if c.err == nil && n != fi.Size() {
			c.err = fmt.Errorf("%s changed while copying", path)
		}
	}
	c.pad(fi.Size())
}

// Close writes the trailer and returns the first error.
func (c *cpioWriter) Close() error {
	c.header("TRAILER!!!", 0, 0, 0, 0)
	return c.err
}
