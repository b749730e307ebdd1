package ssh

// airlock: pooled packet buffers under concurrency: many channels, both
// directions, data and extended data, random write and read sizes, key
// re-exchanges every 256 KiB on both sides, channels closed with data in
// flight. Run with -race.

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	mrand "math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pattern is n bytes no other (id) stream shares: SHA-256 in counter
// mode, so a stray 32 bytes from another stream cannot match.
func pattern(id, n int) []byte {
	out := make([]byte, 0, n+32)
	var blk [16]byte
	binary.BigEndian.PutUint64(blk[:8], uint64(id))
	for i := uint64(0); len(out) < n; i++ {
		binary.BigEndian.PutUint64(blk[8:], i)
		sum := sha256.Sum256(blk[:])
		out = append(out, sum[:]...)
	}
	return out[:n]
}

// oddCopy copies src to dst in reads of random sizes (1 byte to 150
// KiB), so that the writes on the way back are of random sizes too.
func oddCopy(dst io.Writer, src io.Reader, seed int64) error {
	r := mrand.New(mrand.NewSource(seed))
	buf := make([]byte, 150<<10)
	for {
		n := 1 + r.Intn(len(buf))
		if r.Intn(4) == 0 {
			n = 1 + r.Intn(64)
		}
		k, err := src.Read(buf[:n])
		if k > 0 {
			if _, werr := dst.Write(buf[:k]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// writeOdd writes data to w in writes of random sizes (1 byte to past
// the packet limit).
func writeOdd(w io.Writer, data []byte, seed int64) error {
	r := mrand.New(mrand.NewSource(seed))
	for off := 0; off < len(data); {
		n := 1 + r.Intn(200<<10)
		if r.Intn(3) == 0 {
			n = 1 + r.Intn(100)
		}
		n = min(n, len(data)-off)
		if _, err := w.Write(data[off : off+n]); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// echoBoth echoes a channel's data and extended data back on the same
// stream, sends EOF, and closes the channel once the client has.
func echoBoth(ch Channel, reqs <-chan *Request, seed int64) {
	closed := make(chan struct{})
	go func() { DiscardRequests(reqs); close(closed) }()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); oddCopy(ch, ch, seed) }()
	go func() { defer wg.Done(); oddCopy(ch.Stderr(), ch.Stderr(), seed+1) }()
	wg.Wait()
	ch.CloseWrite()
	<-closed
	ch.Close()
}

// roundTrip sends a data and an extended data stream on a new channel
// and checks that each comes back as sent. The caller closes ch.
func roundTrip(t *testing.T, ch Channel, id, size int) {
	out, errOut := pattern(2*id, size), pattern(2*id+1, size)
	// Both streams are read while they are written: the echo shares
	// the channel's window.
	var gotErr []byte
	var rerr error
	done := make(chan struct{})
	go func() { gotErr, rerr = io.ReadAll(ch.Stderr()); close(done) }()
	go func() {
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); writeOdd(ch, out, int64(id)) }()
		go func() { defer wg.Done(); writeOdd(ch.Stderr(), errOut, int64(id)+1000) }()
		wg.Wait()
		ch.CloseWrite()
	}()
	got, err := io.ReadAll(ch)
	<-done
	if err = errors.Join(err, rerr); err != nil {
		t.Errorf("channel %d: %v", id, err)
	}
	for _, c := range []struct {
		name      string
		got, want []byte
	}{{"data", got, out}, {"extended data", gotErr, errOut}} {
		if string(c.got) != string(c.want) {
			t.Errorf("channel %d %s: %d bytes back of %d, first difference at %d", id, c.name, len(c.got), len(c.want), firstDiff(c.got, c.want))
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// abandon opens a channel, writes without reading what comes back and
// closes it with the echo in flight.
func abandon(t *testing.T, c *Client, id int) {
	ch, reqs, err := c.OpenChannel("echo", nil)
	if err != nil {
		t.Error(err)
		return
	}
	go DiscardRequests(reqs)
	go writeOdd(ch.Stderr(), pattern(1000+id, 512<<10), int64(id))
	writeOdd(ch, pattern(2000+id, 512<<10), int64(id))
	ch.Close()
}

// openEcho opens n channels to p's echo server.
func openEcho(t *testing.T, c *Client, n int) []Channel {
	var chans []Channel
	for range n {
		ch, reqs, err := c.OpenChannel("echo", nil)
		if err != nil {
			t.Fatal(err)
		}
		go DiscardRequests(reqs)
		chans = append(chans, ch)
	}
	return chans
}

func newEchoPair(t *testing.T, conf Config) *attackPair {
	var seed atomic.Int64
	return newAttackPair(t, &ClientConfig{Config: conf}, &ServerConfig{Config: conf}, func(ch Channel, reqs <-chan *Request) {
		echoBoth(ch, reqs, seed.Add(7919))
	})
}

// Six channels, each a data and an extended data stream both ways, with
// key re-exchanges every 256 KiB on both sides. The channels are closed
// when all are done: upstream x/crypto deadlocks a connection whose mux
// receives a CLOSE during a key exchange that has 64 packets queued (the
// mux's reply queues behind them, and the peer's KEXINIT behind the mux;
// the same test against the pristine v0.59.0 hangs too).
func TestAttackStreamsApartAcrossRekeys(t *testing.T) {
	size := 3 << 20
	if testing.Short() {
		size = 1 << 20
	}
	p := newEchoPair(t, Config{RekeyThreshold: 256 << 10})
	chans := openEcho(t, p.client, 6)
	var wg sync.WaitGroup
	for id, ch := range chans {
		wg.Add(1)
		go func() { defer wg.Done(); roundTrip(t, ch, id, size) }()
	}
	wg.Wait()
	for _, ch := range chans {
		ch.Close()
	}
}

// Channels closed while data is in flight both ways (their writer still
// writing, the echo unread), next to channels whose streams must arrive
// intact.
func TestAttackCloseWithDataInFlight(t *testing.T) {
	p := newEchoPair(t, Config{})
	chans := openEcho(t, p.client, 3)
	var wg sync.WaitGroup
	for id, ch := range chans {
		wg.Add(1)
		go func() { defer wg.Done(); roundTrip(t, ch, id, 2<<20) }()
	}
	for id := range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); abandon(t, p.client, id) }()
	}
	wg.Wait()
	for _, ch := range chans {
		ch.Close()
	}
}

// Malformed channel data at the pooled sizes' edges, from an
// authenticated peer on a raw transport: the server drops the connection
// (no panic, no hang) and takes nothing of it into a channel.
func TestAttackMalformedDataPackets(t *testing.T) {
	data := func(ext bool, declared, actual int) []byte {
		p := []byte{msgChannelData, 0, 0, 0, 0}
		if ext {
			p = []byte{msgChannelExtendedData, 0, 0, 0, 0, 0, 0, 0, 1}
		}
		p = binary.BigEndian.AppendUint32(p, uint32(declared))
		return append(p, make([]byte, actual)...)
	}
	for name, pkt := range map[string][]byte{
		"over channelMaxPacket":     data(false, channelMaxPacket+1, channelMaxPacket+1),
		"extended over max":         data(true, channelMaxPacket+1, channelMaxPacket+1),
		"length says less":          data(false, 9216, 9300),
		"length says more":          data(false, 40<<10, 20480),
		"header cut":                {msgChannelExtendedData, 0, 0, 0, 0, 0, 0},
		"largest transport packet":  data(false, 256<<10-64, 256<<10-64),
		"unknown channel, pooled":   append([]byte{msgChannelData, 0, 0, 0, 9}, data(false, 9216, 9216)[5:]...),
		"extended type 2, oversize": append(data(true, channelMaxPacket+1, channelMaxPacket+1)[:5], 0, 0, 0, 2, 0, 2, 0, 1),
	} {
		t.Run(name, func(t *testing.T) {
			cc, sc := loopbackPair(t)
			srvConf := &ServerConfig{NoClientAuth: true}
			srvConf.AddHostKey(attackHostKey(t))
			conns := make(chan *ServerConn, 1)
			accepted := make(chan struct{}, 1)
			go func() {
				c, chans, reqs, err := NewServerConn(sc, srvConf)
				if err != nil {
					t.Error(err)
					close(conns)
					return
				}
				go DiscardRequests(reqs)
				go func() {
					for nc := range chans {
						ch, reqs, _ := nc.Accept()
						accepted <- struct{}{}
						go DiscardRequests(reqs)
						go io.Copy(io.Discard, ch)
					}
				}()
				conns <- c
			}()
			tr := rawAfterFirstKex(t, cc, true)
			open := Marshal(&channelOpenMsg{ChanType: "session", PeersID: 0, PeersWindow: 1 << 20, MaxPacketSize: 1 << 15})
			if err := tr.writePacket(open); err != nil {
				t.Fatal(err)
			}
			// Data before the server accepts the channel is dropped
			// unread (upstream), so wait for it.
			select {
			case <-accepted:
			case <-time.After(5 * time.Second):
				t.Fatal("channel not accepted")
			}
			tr.writePacket(data(false, 5, 5)) // a good one first
			tr.writePacket(pkt)
			c := <-conns
			if c == nil {
				return
			}
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			select {
			case err := <-done:
				t.Logf("server: %v", err)
			case <-time.After(5 * time.Second):
				t.Error("server kept the connection")
			}
		})
	}
}
