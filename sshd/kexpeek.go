package sshd

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"time"
)

// Cipher choice per connection. SSH lets the client's preference win, and
// OpenSSH clients put chacha20-poly1305 first, which x/crypto computes
// without SIMD (about 0.6x OpenSSH's speed on bulk transfers), while its
// AES-GCM is faster than OpenSSH's. So before the handshake the server
// reads the client's identification line and, for an OpenSSH client, its
// KEXINIT (sent in the clear right after the identification, without
// waiting for ours). When the client's own order would pick chacha20 and
// it also offers AES-GCM, the server offers only AES-GCM: the client gets
// a cipher it listed, the transfer gets the fast one. Every other client
// negotiates by its own preference against OpenSSH's full set (PuTTY,
// say, ranks AES-CTR first and may warn about what it ranks low), and its
// KEXINIT is not waited for: x/crypto sends ours as soon as the client's
// identification line is in, as OpenSSH's sshd does, so a client that
// waits for the server's KEXINIT before sending its own does not stall.

// gcmCiphers is what an OpenSSH client that would pick chacha20 but offers
// AES-GCM is offered.
var gcmCiphers = []string{"aes128-gcm@openssh.com", "aes256-gcm@openssh.com"}

// kexPeekWait bounds the wait for the client's identification and, from an
// OpenSSH client, its KEXINIT. (A variable for tests.)
var kexPeekWait = 3 * time.Second

// Limits on what is read before the handshake (RFC 4253: lines of at most
// 255 bytes; a KEXINIT is a few kilobytes).
const (
	maxPreLines  = 32
	maxKexPacket = 64 << 10
)

// clientKex is what the peek learned.
type clientKex struct {
	ident                  string // the client's identification line, without CR LF
	ciphersC2S, ciphersS2C []string
}

// isOpenSSH reports whether the client says it is OpenSSH.
func isOpenSSH(ident string) bool { return strings.HasPrefix(ident, "SSH-2.0-OpenSSH_") }

// wantsGCM reports whether the client would pick chacha20-poly1305 from
// the server's full set in both directions and offers AES-GCM in both.
func (k *clientKex) wantsGCM() bool {
	return k != nil && isOpenSSH(k.ident) &&
		firstCommon(k.ciphersC2S, serverCiphers) == "chacha20-poly1305@openssh.com" &&
		firstCommon(k.ciphersS2C, serverCiphers) == "chacha20-poly1305@openssh.com" &&
		firstCommon(k.ciphersC2S, gcmCiphers) != "" && firstCommon(k.ciphersS2C, gcmCiphers) != ""
}

// firstCommon is SSH's negotiation: the first of the client's list that the
// server offers.
func firstCommon(client, server []string) string {
	for _, a := range client {
		for _, b := range server {
			if a == b {
				return a
			}
		}
	}
	return ""
}

// peekConn replays what the peek read to x/crypto and swallows x/crypto's
// own identification line, which the peek already sent (the same string,
// so the exchange hash is unchanged).
type peekConn struct {
	net.Conn
	replay *bytes.Reader
	skip   []byte // our identification line, still to be swallowed
}

func (p *peekConn) Read(b []byte) (int, error) {
	if p.replay.Len() > 0 {
		return p.replay.Read(b)
	}
	return p.Conn.Read(b)
}

func (p *peekConn) Write(b []byte) (int, error) {
	if len(p.skip) > 0 {
		n := min(len(b), len(p.skip))
		if !bytes.Equal(b[:n], p.skip[:n]) {
			return 0, errors.New("sshd: identification line differs from the one sent")
		}
		p.skip = p.skip[n:]
		if n == len(b) {
			return n, nil
		}
		m, err := p.Conn.Write(b[n:])
		return n + m, err
	}
	return p.Conn.Write(b)
}

// peekClientKex sends our identification line, then reads the client's
// and, if it is OpenSSH's, its KEXINIT. It returns the conn to hand
// x/crypto and what it learned (nil when the client said nothing usable in
// time: x/crypto then sees exactly the bytes that were read, and reports
// any protocol error itself). A conn without deadlines is returned
// untouched.
func peekClientKex(nc net.Conn, ident string) (net.Conn, *clientKex) {
	if nc.SetReadDeadline(time.Now().Add(kexPeekWait)) != nil {
		return nc, nil
	}
	defer nc.SetReadDeadline(time.Time{})
	line := []byte(ident + "\r\n")
	if _, err := nc.Write(line); err != nil {
		return nc, nil
	}
	var got bytes.Buffer
	k := readClientKex(io.TeeReader(nc, &got))
	return &peekConn{Conn: nc, replay: bytes.NewReader(got.Bytes()), skip: line}, k
}

// readClientKex reads identification lines up to the client's "SSH-" line
// and, for an OpenSSH client, one binary packet, parsed as a KEXINIT.
// (Whatever it reads past that is replayed with the rest: the peek tees
// every byte it takes from the connection.)
func readClientKex(r io.Reader) *clientKex {
	br := bufio.NewReader(r)
	var ident string
	for i := 0; ; i++ {
		l, err := br.ReadSlice('\n')
		if err != nil || i >= maxPreLines {
			return nil
		}
		if bytes.HasPrefix(l, []byte("SSH-")) {
			ident = strings.TrimRight(string(l), "\r\n")
			break
		}
	}
	if !isOpenSSH(ident) {
		return &clientKex{ident: ident}
	}
	var hdr [4]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n < 2 || n > maxKexPacket {
		return nil
	}
	pkt := make([]byte, n)
	if _, err := io.ReadFull(br, pkt); err != nil {
		return nil
	}
	k := parseKexInit(pkt)
	if k != nil {
		k.ident = ident
	}
	return k
}

// parseKexInit reads the cipher lists of an unencrypted KEXINIT packet
// (padding_length, payload, padding); nil if it is not one.
func parseKexInit(pkt []byte) *clientKex {
	pad := int(pkt[0])
	if pad >= len(pkt)-1 {
		return nil
	}
	p := pkt[1 : len(pkt)-pad]
	const msgKexInit = 20
	if len(p) < 17 || p[0] != msgKexInit {
		return nil
	}
	p = p[17:] // message number and cookie
	var lists [4][]string
	for i := range lists {
		if len(p) < 4 {
			return nil
		}
		l := binary.BigEndian.Uint32(p)
		if uint64(l) > uint64(len(p)-4) {
			return nil
		}
		if l > 0 {
			lists[i] = strings.Split(string(p[4:4+l]), ",")
		}
		p = p[4+l:]
	}
	return &clientKex{ciphersC2S: lists[2], ciphersS2C: lists[3]}
}
