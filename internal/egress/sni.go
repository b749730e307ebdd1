package egress

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"net"
	"regexp"
	"sync"
	"time"
)

// A tunnelled CONNECT (a host with neither credentials nor approve rules)
// is not decrypted, but while approve rules exist the proxy reads the
// start of what the client sends through it, because a held host can share
// a server front (a CDN) with an allowed name and be picked by the TLS
// ClientHello's SNI:
//
//   - a TLS ClientHello must name the CONNECT host in its SNI (compared like
//     a Target: case and a trailing dot do not matter); another name, or
//     none, is refused with a TLS unrecognized_name alert. An Encrypted
//     Client Hello's outer name is such another name;
//   - plain HTTP (a request line ending in HTTP/x) inside the tunnel is
//     refused: send it to the proxy as an absolute http:// request;
//   - anything else (SSH, a server-first protocol) is tunnelled as before.
//
// Inside a TLS tunnel whose SNI is the CONNECT host, the encrypted Host
// header can still name another site on the same front ("domain
// fronting"); that needs interception and stays a documented limit.

// sniPeekTimeout bounds reading the client's first bytes once they started.
const sniPeekTimeout = 10 * time.Second

// inspectConn checks the client's first bytes on its first Read (the
// server's bytes flow meanwhile, for server-first protocols); a refusal
// closes both connections.
type inspectConn struct {
	net.Conn
	br     *bufio.Reader
	check  func() error
	once   sync.Once
	err    error
	refuse func(error)
}

func (c *inspectConn) Read(p []byte) (int, error) {
	c.once.Do(func() {
		if c.err = c.check(); c.err != nil {
			c.refuse(c.err)
		}
	})
	if c.err != nil {
		return 0, c.err
	}
	return c.br.Read(p)
}

var errNotHello = errors.New("not a TLS ClientHello")

// peekSNI reads (without consuming) the ClientHello at the start of br and
// returns its server name ("" when it has none). crypto/tls parses it: the
// handshake is fed the peeked records and stopped once the hello is read.
func peekSNI(br *bufio.Reader) (string, error) {
	n := 0
	for records := 0; records < 8; records++ {
		h, err := br.Peek(n + 5)
		if err != nil {
			return "", err
		}
		if h[n] != 0x16 {
			return "", errNotHello
		}
		n += 5 + (int(h[n+3])<<8 | int(h[n+4]))
		if n > br.Size() {
			return "", errNotHello
		}
		b, err := br.Peek(n)
		if err != nil {
			return "", err
		}
		var hello *tls.ClientHelloInfo
		stop := errors.New("stop")
		_ = tls.Server(helloConn{r: bytes.NewReader(b)}, &tls.Config{
			GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) { hello = h; return nil, stop },
		}).Handshake()
		if hello != nil {
			return hello.ServerName, nil
		}
		// The hello may continue in the next record; else it is malformed.
		if nb, err := br.Peek(n + 1); err != nil || nb[n] != 0x16 {
			return "", errNotHello
		}
	}
	return "", errNotHello
}

// helloConn feeds peeked bytes to a crypto/tls server that never answers.
type helloConn struct {
	net.Conn
	r *bytes.Reader
}

func (c helloConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c helloConn) Write(p []byte) (int, error) { return 0, errors.New("read-only") }
func (c helloConn) Close() error                { return nil }

// httpLine is a request line's start; httpLineEnd its end.
var (
	httpLineStart = regexp.MustCompile(`^[A-Z]{3,20} [^ \r\n]`)
	httpLineEnd   = regexp.MustCompile(`^[A-Z]{3,20} [^ \r\n]+ HTTP/[0-9]`)
)

// checkTunnelStart decides about the first bytes a client sends through a
// tunnel to t (see the comment at the top of this file).
func checkTunnelStart(c net.Conn, br *bufio.Reader, t Target) error {
	first, err := br.Peek(1)
	if err != nil {
		return nil // nothing sent: nothing to check
	}
	_ = c.SetReadDeadline(time.Now().Add(sniPeekTimeout))
	defer c.SetReadDeadline(time.Time{})
	if first[0] == 0x16 {
		sni, err := peekSNI(br)
		switch {
		case err != nil:
			return errors.New("the tunnel starts with a TLS record that is not a readable ClientHello")
		case sni == "":
			return errors.New("the TLS ClientHello names no server (SNI)")
		}
		if st, err := ParseTarget(sni, t.Port); err != nil || st != t {
			return errors.New("the TLS ClientHello's SNI " + truncate(sni, 80) + " is not the CONNECT host")
		}
		return nil
	}
	b, _ := br.Peek(br.Buffered())
	if !httpLineStart.Match(b) {
		return nil
	}
	for !bytes.ContainsAny(b, "\r\n") && len(b) < 8<<10 {
		if b, err = br.Peek(len(b) + 1); err != nil {
			break
		}
		b, _ = br.Peek(br.Buffered())
	}
	if httpLineEnd.Match(b) {
		return errors.New("plain HTTP inside a CONNECT tunnel is refused while approve rules exist; send it to the proxy as an http:// request")
	}
	return nil
}

// tlsUnrecognizedName is a fatal TLS alert record (unrecognized_name).
var tlsUnrecognizedName = []byte{0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x70}
