package sshd

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"io"
	"net"
	"sync"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// The x/crypto fork pools channel data packets (third_party/.../ssh,
// copyPacket and releasePacket) and sends up to 128 KiB per packet. Many
// channels at once, each carrying its own stream both ways in writes
// of every size up to past the packet limit, read in odd sizes: every
// stream arrives intact (a buffer returned to the pool while still in
// use would mix streams).
func TestChannelStreamsKeptApart(t *testing.T) {
	_, hostPriv, _ := ed25519.GenerateKey(rand.Reader)
	hostKey, err := gossh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cc, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	sc, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	srvConf := &gossh.ServerConfig{NoClientAuth: true}
	srvConf.AddHostKey(hostKey)
	type served struct {
		c     gossh.Conn
		chans <-chan gossh.NewChannel
		reqs  <-chan *gossh.Request
		err   error
	}
	srvDone := make(chan served, 1)
	go func() {
		c, chans, reqs, err := gossh.NewServerConn(sc, srvConf)
		srvDone <- served{c, chans, reqs, err}
	}()
	client, cchans, creqs, err := gossh.NewClientConn(cc, "pool.test", &gossh.ClientConfig{HostKeyCallback: gossh.InsecureIgnoreHostKey()})
	if err != nil {
		t.Fatal(err)
	}
	srv := <-srvDone
	if srv.err != nil {
		t.Fatal(srv.err)
	}
	go gossh.DiscardRequests(srv.reqs)
	go gossh.DiscardRequests(creqs)
	go func() {
		for nc := range cchans {
			nc.Reject(gossh.Prohibited, "no")
		}
	}()
	// The server echoes each channel back, reading in odd sizes.
	go func() {
		for nc := range srv.chans {
			ch, reqs, err := nc.Accept()
			if err != nil {
				return
			}
			go gossh.DiscardRequests(reqs)
			go func() {
				buf := make([]byte, 7919)
				io.CopyBuffer(ch, struct{ io.Reader }{ch}, buf)
				ch.CloseWrite()
			}()
		}
	}()
	const chans, size = 8, 3 << 20
	var wg sync.WaitGroup
	for i := range chans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch, reqs, err := client.OpenChannel("echo", nil)
			if err != nil {
				t.Error(err)
				return
			}
			go gossh.DiscardRequests(reqs)
			data := make([]byte, size)
			rand.Read(data)
			go func() {
				for off, k := 0, 1+i*997; off < len(data); k = k*3%(128<<10+5000) + 1 {
					n := min(k, len(data)-off)
					if _, err := ch.Write(data[off : off+n]); err != nil {
						t.Error(err)
						return
					}
					off += n
				}
				ch.CloseWrite()
			}()
			got, err := io.ReadAll(ch)
			if err != nil {
				t.Error(err)
			}
			if sha256.Sum256(got) != sha256.Sum256(data) {
				t.Errorf("channel %d: %d bytes back, not the %d sent (first difference at %d)", i, len(got), len(data), firstDiffAt(got, data))
			}
			ch.Close()
		}()
	}
	wg.Wait()
	client.Close()
}

func firstDiffAt(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if bytes.Equal(a, b) {
		return -1
	}
	return min(len(a), len(b))
}
