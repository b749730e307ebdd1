package sshd

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

var bufPool = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// copyBuf is io.Copy with pooled 64 KiB buffers (a pipe's capacity). It
// ignores ReaderFrom/WriterTo so that every copy path behaves the same.
func copyBuf(dst io.Writer, src io.Reader) (int64, error) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	var n int64
	for {
		nr, rerr := src.Read(buf)
		if nr > 0 {
			nw, werr := dst.Write(buf[:nr])
			n += int64(nw)
			if werr != nil {
				return n, werr
			}
			if nw != nr {
				return n, io.ErrShortWrite
			}
		}
		if rerr != nil {
			if rerr == io.EOF {
				return n, nil
			}
			return n, rerr
		}
	}
}

func lastIndexByte(b []byte, c byte) int { return bytes.LastIndexByte(b, c) }

func sscanStat(b []byte, state *byte, ppid, pgrp, sess *int) (int, error) {
	return fmt.Sscanf(string(b), " %c %d %d %d", state, ppid, pgrp, sess)
}
