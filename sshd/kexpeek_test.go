package sshd

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// cipherRe finds what OpenSSH's client says it negotiated (ssh -v).
var cipherRe = regexp.MustCompile(`kex: server->client cipher: (\S+)`)

// TestCipherChoice: an OpenSSH client whose list puts chacha20 first but
// offers AES-GCM gets AES-GCM; one that insists on chacha20, or ranks
// aes-ctr above AES-GCM, gets its own choice (TestCiphers covers each
// cipher forced alone).
func TestCipherChoice(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, nil)
	for _, c := range []struct{ opt, want string }{
		{"chacha20-poly1305@openssh.com,aes128-ctr,aes256-gcm@openssh.com", "aes256-gcm@openssh.com"},
		{"chacha20-poly1305@openssh.com,aes128-ctr", "chacha20-poly1305@openssh.com"},
		{"aes128-ctr,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com", "aes128-ctr"},
	} {
		args := []string{"-v"}
		if c.opt != "" {
			args = append(args, "-c", c.opt)
		}
		out, errOut, code := ts.ssh(t, "", append(args, "test", "echo ok")...)
		m := cipherRe.FindStringSubmatch(errOut)
		if code != 0 || strings.TrimSpace(out) != "ok" || m == nil || m[1] != c.want {
			t.Errorf("-c %q: exit %d, out %q, negotiated %v, want %s\n%s", c.opt, code, out, m, c.want, errOut[max(0, len(errOut)-800):])
		}
	}
	// x/crypto's client (aes128-gcm first by default) still connects.
	cl := ts.client(t)
	cl.Close()
}

func kexPacket(c2s, s2c string) []byte {
	var p bytes.Buffer
	p.WriteByte(20)
	p.Write(make([]byte, 16))
	for _, l := range []string{"curve25519-sha256", "ssh-ed25519", c2s, s2c, "hmac-sha2-256", "hmac-sha2-256", "none", "none", "", ""} {
		binary.Write(&p, binary.BigEndian, uint32(len(l)))
		p.WriteString(l)
	}
	p.Write([]byte{0, 0, 0, 0, 0})
	pad := 4
	pkt := append([]byte{byte(pad)}, p.Bytes()...)
	pkt = append(pkt, make([]byte, pad)...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(pkt))), pkt...)
}

func TestReadClientKex(t *testing.T) {
	in := append([]byte("banner line\r\nSSH-2.0-OpenSSH_9.2p1 Debian\r\n"), kexPacket("chacha20-poly1305@openssh.com,aes128-gcm@openssh.com", "chacha20-poly1305@openssh.com,aes128-gcm@openssh.com")...)
	in = append(in, "trailing bytes of the next packet"...)
	k := readClientKex(bytes.NewReader(in))
	if !k.wantsGCM() || len(k.ciphersC2S) != 2 || k.ident != "SSH-2.0-OpenSSH_9.2p1 Debian" {
		t.Fatalf("parsed %+v", k)
	}
	for _, c := range []struct {
		ident, ciphers string
		gcm, parsed    bool
	}{
		{"SSH-2.0-OpenSSH_9.2", "chacha20-poly1305@openssh.com", false, true},
		{"SSH-2.0-OpenSSH_9.2", "aes128-ctr,aes128-gcm@openssh.com", false, true}, // client's order picks aes128-ctr
		{"SSH-2.0-OpenSSH_9.2", "3des-cbc,chacha20-poly1305@openssh.com,aes256-gcm@openssh.com", true, true},
		{"SSH-2.0-PuTTY_Release_0.78", "chacha20-poly1305@openssh.com,aes128-gcm@openssh.com", false, false}, // not waited for
	} {
		k := readClientKex(bytes.NewReader(append([]byte(c.ident+"\r\n"), kexPacket(c.ciphers, c.ciphers)...)))
		if k == nil || k.wantsGCM() != c.gcm || (k.ciphersC2S != nil) != c.parsed || k.ident != c.ident {
			t.Errorf("%s %s: %+v", c.ident, c.ciphers, k)
		}
	}
	for _, bad := range [][]byte{nil, []byte("SSH-2.0-OpenSSH_9\r\n\x00\x00\x00\x01\x00"), []byte("SSH-2.0-OpenSSH_9\r\n\xff\xff\xff\xff"), bytes.Repeat([]byte("x\n"), 100)} {
		if k := readClientKex(bytes.NewReader(bad)); k != nil {
			t.Errorf("%q parsed as %+v", bad, k)
		}
	}
}

// TestNoWaitForClientKex: a client that is not OpenSSH gets the server's
// KEXINIT right after its identification line, without sending its own
// (the peek's wait is made long so that only a wait-free path passes).
func TestNoWaitForClientKex(t *testing.T) {
	defer func(w time.Duration) { kexPeekWait = w }(kexPeekWait)
	kexPeekWait = 5 * time.Minute
	ts := startServer(t, nil)
	c, err := net.Dial("tcp", ts.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("SSH-2.0-WaitsForServerKexinit_1.0\r\n"))
	c.SetReadDeadline(time.Now().Add(60 * time.Second))
	br := bufio.NewReader(c)
	if l, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(l, "SSH-2.0-") {
		t.Fatalf("identification %q %v", l, err)
	}
	var hdr [6]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil || hdr[5] != 20 {
		t.Fatalf("no KEXINIT from the server: % x %v", hdr, err)
	}
}

// TestPeekConnReplays: x/crypto sees every byte the peek read, in order,
// and its identification line is swallowed exactly once.
func TestPeekConnReplays(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() {
		io.ReadFull(b, make([]byte, len("SSH-2.0-test\r\n")))
		b.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
		b.Write(append(kexPacket("chacha20-poly1305@openssh.com,aes128-gcm@openssh.com", "chacha20-poly1305@openssh.com,aes128-gcm@openssh.com"), "rest"...))
		buf := make([]byte, 5)
		io.ReadFull(b, buf)
		b.Write(buf) // echo what the server wrote after its identification
	}()
	pc, k := peekClientKex(a, "SSH-2.0-test")
	if !k.wantsGCM() {
		t.Fatalf("kex %+v", k)
	}
	if _, err := pc.Write([]byte("SSH-2.0-test\r\nhello")); err != nil {
		t.Fatal(err)
	}
	want := "SSH-2.0-OpenSSH_9.2\r\n" + string(kexPacket("chacha20-poly1305@openssh.com,aes128-gcm@openssh.com", "chacha20-poly1305@openssh.com,aes128-gcm@openssh.com")) + "rest" + "hello"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(pc, got); err != nil || string(got) != want {
		t.Fatalf("replayed %q, %v", got, err)
	}
}

func FuzzReadClientKex(f *testing.F) {
	f.Add(append([]byte("SSH-2.0-OpenSSH_9.2\r\n"), kexPacket("aes128-gcm@openssh.com", "aes128-ctr")...))
	f.Add([]byte("SSH-2.0-OpenSSH_9.2\r\n\x00\x00\x00\x05\x04\x14abcd"))
	f.Fuzz(func(t *testing.T, b []byte) {
		k := readClientKex(bytes.NewReader(b))
		_ = k.wantsGCM()
	})
}

// TestMaxStartups: connections that never authenticate (outside sshd
// attack 11 pinned ~290 KB each) are capped; once they go, logins work.
func TestMaxStartups(t *testing.T) {
	ts := startServer(t, nil)
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := 0; i < MaxStartups; i++ {
		c, err := net.Dial("tcp", ts.Addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		io.ReadFull(c, make([]byte, 4)) // the server's "SSH-": this one has its slot
	}
	c, err := net.Dial("tcp", ts.Addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 64)); err == nil || n > 0 {
		t.Errorf("connection past the cap was served (%d bytes, %v)", n, err)
	}
	c.Close()
	for _, c := range held {
		c.Close()
	}
	held = nil
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := gossh.Dial("tcp", ts.Addr, &gossh.ClientConfig{User: "tester", Auth: []gossh.AuthMethod{gossh.PublicKeys(ts.ClientKey)},
			HostKeyCallback: gossh.FixedHostKey(ts.HostPublic), Timeout: 5 * time.Second}); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("no login after the idle connections closed: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
