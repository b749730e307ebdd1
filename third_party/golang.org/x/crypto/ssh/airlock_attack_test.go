package ssh

// airlock: attacks on the fork's changes (pooled channel data packets,
// 128 KiB channel packets, messages set aside during a re-exchange), run
// against a real server and client over loopback TCP. See
// third_party/README.md for the changes.

import (
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// attackPair is a server and a client connected over loopback TCP; the
// server accepts every channel and hands it to onChannel.
type attackPair struct {
	server *ServerConn
	client *Client
}

func attackHostKey(t testing.TB) Signer {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// loopbackPair returns two ends of a loopback TCP connection.
func loopbackPair(t testing.TB) (client, server net.Conn) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err = net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

func newAttackPair(t testing.TB, cliConf *ClientConfig, srvConf *ServerConfig, onChannel func(Channel, <-chan *Request)) *attackPair {
	cc, sc := loopbackPair(t)
	if srvConf == nil {
		srvConf = &ServerConfig{}
	}
	srvConf.NoClientAuth = true
	srvConf.AddHostKey(attackHostKey(t))
	if cliConf == nil {
		cliConf = &ClientConfig{}
	}
	cliConf.HostKeyCallback = InsecureIgnoreHostKey()
	type served struct {
		c     *ServerConn
		chans <-chan NewChannel
		reqs  <-chan *Request
		err   error
	}
	done := make(chan served, 1)
	go func() {
		c, chans, reqs, err := NewServerConn(sc, srvConf)
		done <- served{c, chans, reqs, err}
	}()
	c, chans, reqs, err := NewClientConn(cc, "attack.test", cliConf)
	if err != nil {
		t.Fatal(err)
	}
	srv := <-done
	if srv.err != nil {
		t.Fatal(srv.err)
	}
	go DiscardRequests(srv.reqs)
	go func() {
		for nc := range srv.chans {
			ch, reqs, err := nc.Accept()
			if err != nil {
				return
			}
			go onChannel(ch, reqs)
		}
	}()
	client := NewClient(c, chans, reqs)
	t.Cleanup(func() { client.Close(); srv.c.Close() })
	return &attackPair{server: srv.c, client: client}
}

// liveHeap is the heap in use after two collections (the second empties
// sync.Pool's victim cache, so pooled buffers nobody holds are gone).
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A peer that sends its channel data one byte per packet, to a channel
// whose reader is slow or absent (a session's stdin while the command
// does not read it, a forward whose far end stalls, stderr the server
// never reads): the window (2 MiB) bounds the bytes, but each packet
// was held in a 128 KiB pooled buffer until read, so 1 MiB on the wire
// pinned gigabytes (1200 such packets: 160 MiB). Even as upstream, an
// element and an allocation per packet cost 84 bytes per byte (168 MiB
// a channel). Here 10000 + 10000 one-byte packets (data and extended
// data): the server's heap may grow by a few hundred KiB.
func TestAttackTinyPacketsPinPooledBuffers(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	p := newAttackPair(t, nil, nil, func(ch Channel, reqs <-chan *Request) {
		go DiscardRequests(reqs)
		<-hold // never reads
		ch.Close()
	})
	ch, reqs, err := p.client.OpenChannel("session", nil)
	if err != nil {
		t.Fatal(err)
	}
	go DiscardRequests(reqs)
	before := liveHeap()
	const n = 10000
	for i := 0; i < n; i++ {
		if _, err := ch.Write([]byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := ch.Stderr().Write([]byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	// The server's mux handles packets in order: once it answered this,
	// it has buffered every data packet above.
	if _, _, err := p.client.SendRequest("sync@attack", true, nil); err != nil {
		t.Fatal(err)
	}
	grown := int64(liveHeap()) - int64(before)
	t.Logf("%d one-byte packets buffered: heap grew %d KiB (%d B per packet)", 2*n, grown/1024, grown/(2*n))
	if grown > 512<<10 {
		t.Fatalf("%d one-byte data packets pinned %d KiB on the server", 2*n, grown>>10)
	}
}

// freezeConn is a client's transport that, once frozen, hands its
// handshakeTransport nothing more: the test then speaks on the raw
// transport without the client's key exchange machinery answering.
type freezeConn struct {
	keyingTransport
	frozen atomic.Bool
	gone   chan struct{}
}

func (f *freezeConn) readPacket() ([]byte, error) {
	p, err := f.keyingTransport.readPacket()
	if f.frozen.Load() {
		<-f.gone
		return nil, io.EOF
	}
	return p, err
}

// rawAfterFirstKex connects to a server, completes the first key
// exchange (and, if auth, authentication with method "none") and
// returns the raw transport.
func rawAfterFirstKex(t testing.TB, conn net.Conn, auth bool) *transport {
	clientVersion := []byte("SSH-2.0-attack")
	serverVersion, err := exchangeVersions(conn, clientVersion)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTransport(conn, rand.Reader, true)
	f := &freezeConn{keyingTransport: tr, gone: make(chan struct{})}
	t.Cleanup(func() { close(f.gone) })
	conf := &ClientConfig{HostKeyCallback: InsecureIgnoreHostKey()}
	conf.SetDefaults()
	ht := newClientTransport(f, clientVersion, serverVersion, conf, "attack", conn.RemoteAddr())
	if err := ht.waitSession(); err != nil {
		t.Fatal(err)
	}
	if auth {
		for _, m := range []any{
			&serviceRequestMsg{serviceUserAuth},
			&userAuthRequestMsg{User: "attack", Service: serviceSSH, Method: "none"},
		} {
			if err := ht.writePacket(Marshal(m)); err != nil {
				t.Fatal(err)
			}
			if _, err := ht.readPacket(); err != nil {
				t.Fatal(err)
			}
		}
	}
	f.frozen.Store(true)
	return tr
}

// rawKexInit is a KEXINIT the test's server accepts.
func rawKexInit() []byte {
	msg := &kexInitMsg{
		KexAlgos:                []string{KeyExchangeCurve25519},
		ServerHostKeyAlgos:      []string{KeyAlgoED25519},
		CiphersClientServer:     []string{CipherAES128GCM},
		CiphersServerClient:     []string{CipherAES128GCM},
		MACsClientServer:        []string{HMACSHA256},
		MACsServerClient:        []string{HMACSHA256},
		CompressionClientServer: []string{"none"},
		CompressionServerClient: []string{"none"},
	}
	rand.Read(msg.Cookie[:])
	return Marshal(msg)
}

// A client starts a re-exchange (KEXINIT) and never finishes it,
// sending channel data messages instead: the fork sets messages numbered
// 50 and up aside during a re-exchange (64 MiB at most, counted by their
// length). Each 10-byte channel data message was held in a 128 KiB
// pooled buffer: 1500 of them (about 60 KB on the wire) pinned 190 MiB
// (before authentication too, then).
func TestAttackRekeyDeferralPooled(t *testing.T) {
	cc, sc := loopbackPair(t)
	srvConf := &ServerConfig{NoClientAuth: true}
	srvConf.AddHostKey(attackHostKey(t))
	srvErr := make(chan error, 1)
	go func() {
		_, _, _, err := NewServerConn(sc, srvConf)
		srvErr <- err
	}()
	tr := rawAfterFirstKex(t, cc, true)
	before := liveHeap()
	if err := tr.writePacket(rawKexInit()); err != nil {
		t.Fatal(err)
	}
	const n = 1500
	data := []byte{msgChannelData, 0, 0, 0, 0, 0, 0, 0, 1, 'x'}
	for i := 0; i < n; i++ {
		if err := tr.writePacket(data); err != nil {
			t.Fatal(err)
		}
	}
	// Nothing answers during the exchange: wait for the server to have
	// read everything (the loopback socket holds the rest briefly).
	var grown int64
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		if g := int64(liveHeap()) - int64(before); g > grown {
			grown = g
		}
	}
	t.Logf("%d deferred 10-byte messages: heap grew %d KiB", n, grown/1024)
	if grown > 8<<20 {
		t.Fatalf("%d deferred 10-byte messages pinned %d MiB before authentication", n, grown>>20)
	}
	cc.Close()
	select {
	case <-srvErr:
	case <-time.After(5 * time.Second):
		t.Fatal("server still in the handshake after the client left")
	}
}

// Packets just above half of each pooled size (and the sizes around
// where pooling starts, and the largest) held unread: the server's heap
// grows by at most about twice the data (the window, 2 MiB a channel,
// bounds the data).
func TestAttackPooledSizesBoundedByData(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	p := newAttackPair(t, nil, nil, func(ch Channel, reqs <-chan *Request) {
		go DiscardRequests(reqs)
		<-hold
		ch.Close()
	})
	const header = 9 // a data packet's header
	for _, n := range []int{9215, 9216, 18433, 20480, 36864, 69632, 100000, channelMaxPacket + 9} {
		ch, reqs, err := p.client.OpenChannel("session", nil)
		if err != nil {
			t.Fatal(err)
		}
		go DiscardRequests(reqs)
		d := n - header
		count := (3 << 19) / d
		before := liveHeap()
		buf := make([]byte, d)
		for range count {
			if _, err := ch.Write(buf); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := p.client.SendRequest("sync@attack", true, nil); err != nil {
			t.Fatal(err)
		}
		grown := int64(liveHeap()) - int64(before) - int64(len(buf))
		data := int64(count * d)
		t.Logf("%d packets of %d bytes unread: %d KiB of data, heap grew %d KiB", count, n, data/1024, grown/1024)
		if grown > data*21/10+(256<<10) {
			t.Errorf("packets of %d bytes: %d KiB of unread data held in %d KiB", n, data/1024, grown/1024)
		}
	}
}

// The same before authentication, with messages that are not pooled (a
// 256 KiB global request each): nothing may be set aside before the
// peer has authenticated (no channel can exist then, and sshd's
// MaxStartups bound on unauthenticated connections assumes each holds a
// handshake's buffers, not 64 MiB). The server drops the connection at
// the first such message, as upstream does.
func TestAttackRekeyDeferralHeldBeforeAuth(t *testing.T) {
	cc, sc := loopbackPair(t)
	srvConf := &ServerConfig{PasswordCallback: func(ConnMetadata, []byte) (*Permissions, error) {
		return nil, io.EOF
	}}
	srvConf.AddHostKey(attackHostKey(t))
	srvErr := make(chan error, 1)
	go func() {
		_, _, _, err := NewServerConn(sc, srvConf)
		srvErr <- err
	}()
	tr := rawAfterFirstKex(t, cc, false)
	before := liveHeap()
	if err := tr.writePacket(rawKexInit()); err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, 250<<10)
	msg[0] = msgGlobalRequest
	var sent int
	for ; sent < 32<<20; sent += len(msg) {
		if err := tr.writePacket(msg); err != nil {
			break // the server hung up
		}
	}
	var grown int64
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		if g := int64(liveHeap()) - int64(before); g > grown {
			grown = g
		}
	}
	t.Logf("%d MiB of messages sent during an unfinished re-exchange before authentication: server heap grew %d MiB", sent>>20, grown>>20)
	if grown > 8<<20 {
		t.Errorf("an unauthenticated peer made the server hold %d MiB", grown>>20)
	}
	select {
	case err := <-srvErr:
		t.Logf("server: %v", err)
	case <-time.After(5 * time.Second):
		t.Error("server still holds the connection")
	}
}
