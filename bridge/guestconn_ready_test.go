package bridge

import (
	"io"
	"net"
	"testing"
)

// The read-ahead grows to a whole channel packet once a read fills it.
func TestGuestConnReadAheadGrows(t *testing.T) {
	a, b := net.Pipe()
	c := newGuestConn(a, nil, nil)
	defer c.Close()
	defer b.Close()
	go b.Write(make([]byte, guestReadBuf))
	if _, err := io.ReadFull(c, make([]byte, guestReadBuf)); err != nil {
		t.Fatal(err)
	}
	// The first read filled the buffer: the next one takes a whole packet.
	go b.Write(make([]byte, guestReadMax))
	if n, err := c.Read(make([]byte, 2*guestReadMax)); n != guestReadMax || err != nil {
		t.Fatalf("read %d, %v; want %d at once", n, err, guestReadMax)
	}
}
