package bridge

import (
	"io"
	"net"
	"testing"
	"time"
)

// ReadReady is true while bytes read ahead wait for Read and false once
// they are taken (the next read would wait for the guest), true again at
// the guest's end; the read-ahead grows to a whole channel packet once a
// read fills it.
func TestGuestConnReadReadyAndGrowth(t *testing.T) {
	a, b := net.Pipe()
	c := newGuestConn(a, nil, nil)
	defer c.Close()
	go b.Write(make([]byte, guestReadBuf))
	one := make([]byte, 1)
	if _, err := io.ReadFull(c, one); err != nil {
		t.Fatal(err)
	}
	if !c.ReadReady() {
		t.Fatal("not ready with read-ahead bytes left")
	}
	if _, err := io.ReadFull(c, make([]byte, guestReadBuf-1)); err != nil {
		t.Fatal(err)
	}
	if c.ReadReady() {
		t.Fatal("ready with nothing read ahead")
	}
	// The first read filled the buffer: the next one takes a whole packet.
	go b.Write(make([]byte, guestReadMax))
	if n, err := c.Read(make([]byte, 2*guestReadMax)); n != guestReadMax || err != nil {
		t.Fatalf("read %d, %v; want %d at once", n, err, guestReadMax)
	}
	b.Close()
	for deadline := time.Now().Add(5 * time.Second); !c.ReadReady(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("ReadReady never turned true at the guest's end")
		}
	}
}
