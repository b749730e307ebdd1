package sshd

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"net"
	"runtime"
	"testing"
	"time"
)

// Attacks from outside (a process that reaches the sshd's port, no key)
// on what the x/crypto fork changed: a 32 KiB read buffer per
// connection from its first byte, packets of up to 256 KiB. Connections
// that send an identification and then part of a packet declared at the
// transport's largest size, and never more: what each costs the server
// while it waits (LoginGrace). sshd's MaxStartups comment budgets about
// 75 MB for 256 of them.
func TestOutsideUnauthPartialPackets(t *testing.T) {
	for _, ident := range []string{"SSH-2.0-attack", "SSH-2.0-OpenSSH_9.2p1"} {
		t.Run(ident, func(t *testing.T) { partialPackets(t, ident) })
	}
}

func partialPackets(t *testing.T, ident string) {
	// The server logs these connections' failures after the test has
	// returned: not to t.
	ts := startServer(t, func(c *Config) { c.Logger = nil })
	const conns = 64
	g0 := runtime.NumGoroutine()
	before := heapNow()
	var cs []net.Conn
	defer func() {
		for _, c := range cs {
			c.Close()
		}
	}()
	for range conns {
		c, err := net.Dial("tcp", ts.Addr)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
		// A binary packet in the clear: length (256 KiB - 4, the
		// largest allowed), padding length, a KEXINIT's type, then only
		// 30000 bytes of it.
		pkt := make([]byte, 4+2+30000)
		binary.BigEndian.PutUint32(pkt, 256<<10-4)
		pkt[4], pkt[5] = 4, 20
		if _, err := fmt.Fprintf(c, "%s\r\n", ident); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write(pkt); err != nil {
			t.Fatal(err)
		}
	}
	var grown int64
	for range 10 {
		time.Sleep(200 * time.Millisecond)
		grown = max(grown, int64(heapNow())-int64(before))
	}
	g := runtime.NumGoroutine() - g0
	t.Logf("%d unauthenticated connections with a partial 256 KiB packet: heap +%d KiB (%d KiB each), goroutines +%d (%d each)",
		conns, grown>>10, grown/conns>>10, g, g/conns)
	// A handshake's buffers: the 32 KiB read buffer and the packet being
	// read (256 KiB); 256 of them within the budgeted ~75 MB.
	if per := grown / conns; per > 384<<10 {
		t.Errorf("each unauthenticated connection costs %d KiB", per>>10)
	}
}

func heapNow() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Real OpenSSH clients, four sessions at once, each piping its own 4 MiB
// through the sshd (stdin to stdout, or to stderr) and rekeying every
// 256 KiB: nothing of one
// session's stream appears in another's (the fork's pooled packet
// buffers are shared by every connection).
func TestOutsideOpenSSHSessionsKeptApart(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, nil)
	type result struct {
		i           int
		out, errOut string
		code        int
	}
	const n, size = 4, 4 << 20
	inputs := make([]string, n)
	results := make(chan result, n)
	for i := range n {
		inputs[i] = string(sessionPattern(i, size))
		cmd := "cat"
		if i%2 == 1 {
			cmd = "cat >&2"
		}
		go func() {
			out, errOut, code := ts.ssh(t, inputs[i], "-o", "RekeyLimit=256K", "test", cmd)
			results <- result{i, out, errOut, code}
		}()
	}
	for range n {
		r := <-results
		got := r.out
		if r.i%2 == 1 {
			got = r.errOut
		}
		if r.code != 0 || got != inputs[r.i] {
			t.Errorf("session %d: exit %d, %d bytes back of %d, first difference at %d", r.i, r.code, len(got), size, firstDiffAt([]byte(got), []byte(inputs[r.i])))
		}
	}
}

// sessionPattern is size bytes of SHA-256 in counter mode keyed by id.
func sessionPattern(id, size int) []byte {
	out := make([]byte, 0, size+32)
	var blk [16]byte
	binary.BigEndian.PutUint64(blk[:8], uint64(id))
	for i := uint64(0); len(out) < size; i++ {
		binary.BigEndian.PutUint64(blk[8:], i)
		sum := sha256.Sum256(blk[:])
		out = append(out, sum[:]...)
	}
	return out[:size]
}
