package bridge

import (
	"io"
	"net"
	"testing"
	"time"
)

// PeerClosed turns true once the guest closed its side, before Read has
// returned the EOF and without consuming anything (the egress proxy
// withdraws a held request whose client hung up).
func TestGuestConnPeerClosed(t *testing.T) {
	a, b := net.Pipe()
	c := newGuestConn(a, nil, nil)
	defer c.Close()
	go io.WriteString(b, "request")
	buf := make([]byte, 7)
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatal(err)
	}
	if c.PeerClosed() {
		t.Fatal("closed before the guest closed")
	}
	b.Close()
	for deadline := time.Now().Add(5 * time.Second); !c.PeerClosed(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("PeerClosed never turned true")
		}
	}
	if n, err := c.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("Read after the guest closed: %d %v", n, err)
	}
}
