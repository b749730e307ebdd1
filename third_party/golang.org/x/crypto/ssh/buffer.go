// Copyright 2012 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ssh

import (
	"io"
	"sync"
)

// buffer provides a linked list buffer for data exchange
// between producer and consumer. Theoretically the buffer is
// of unlimited capacity as it does no allocation of its own.
type buffer struct {
	// protects concurrent access to head, tail and closed
	*sync.Cond

	head *element // the buffer that will be read first
	tail *element // the buffer that will be read last

	closed bool
}

// An element represents a single link in a linked list.
type element struct {
	buf  []byte
	next *element
	// pkt is the pooled packet buf is part of (see copyPacket), returned
	// to the pool when buf has been read; nil otherwise.
	pkt []byte
	// chunk says buf is the buffer's own, holding the data of small
	// packets one after the other (see writePacket).
	chunk bool
}

// airlock: data of a packet smaller than smallData is appended to a
// chunk of chunkSize bytes rather than kept in its packet with an
// element of its own: the window bounds the bytes a peer can have us
// hold, not the packets, and one-byte packets to a reader that is slow
// or absent cost 84 bytes each (168 MiB a channel for a 2 MiB window).
const (
	smallData = 1 << 10
	chunkSize = 4 << 10
)

// newBuffer returns an empty buffer that is not closed.
func newBuffer() *buffer {
	e := new(element)
	b := &buffer{
		Cond: newCond(),
		head: e,
		tail: e,
	}
	return b
}

// write makes buf available for Read to receive.
// buf must not be modified after the call to write.
func (b *buffer) write(buf []byte) { b.writePacket(buf, nil) }

// writePacket is write for data that is part of pkt, a packet from
// copyPacket: pkt is released once buf has been read.
func (b *buffer) writePacket(buf, pkt []byte) {
	b.Cond.L.Lock()
	if len(buf) < smallData {
		if t := b.tail; !t.chunk || len(t.buf)+len(buf) > cap(t.buf) {
			e := &element{buf: make([]byte, 0, chunkSize), chunk: true}
			b.tail.next = e
			b.tail = e
		}
		b.tail.buf = append(b.tail.buf, buf...)
		if pkt != nil {
			releasePacket(pkt) // its data is copied out
		}
	} else {
		e := &element{buf: buf, pkt: pkt}
		b.tail.next = e
		b.tail = e
	}
	b.Cond.Signal()
	b.Cond.L.Unlock()
}

// eof closes the buffer. Reads from the buffer once all
// the data has been consumed will receive io.EOF.
func (b *buffer) eof() {
	b.Cond.L.Lock()
	b.closed = true
	b.Cond.Signal()
	b.Cond.L.Unlock()
}

// Read reads data from the internal buffer in buf.  Reads will block
// if no data is available, or until the buffer is closed.
func (b *buffer) Read(buf []byte) (n int, err error) {
	b.Cond.L.Lock()
	defer b.Cond.L.Unlock()

	for len(buf) > 0 {
		// if there is data in b.head, copy it
		if len(b.head.buf) > 0 {
			r := copy(buf, b.head.buf)
			buf, b.head.buf = buf[r:], b.head.buf[r:]
			n += r
			continue
		}
		if b.head.pkt != nil { // head is read: its packet is free
			releasePacket(b.head.pkt)
			b.head.pkt = nil
		}
		// if there is a next buffer, make it the head
		if len(b.head.buf) == 0 && b.head != b.tail {
			b.head = b.head.next
			continue
		}

		// if at least one byte has been copied, return
		if n > 0 {
			break
		}

		// if nothing was read, and there is nothing outstanding
		// check to see if the buffer is closed.
		if b.closed {
			err = io.EOF
			break
		}
		// out of buffers, wait for producer
		b.Cond.Wait()
	}
	return
}
