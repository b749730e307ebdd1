package egress

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
)

// maxHead bounds a request's line plus headers.
const maxHead = 64 << 10

var (
	errHeadTooLarge = errors.New("request head too large")
	errMalformed    = errors.New("malformed request head")
)

// head is what the proxy reads from the raw bytes of a request head before
// net/http parses it: net/http drops the Host header of absolute-form
// requests, and the proxy must compare it with the URL it dials.
type head struct {
	method, target, proto string
	hosts                 []string // every Host header value, trimmed
}

// peekHead returns the raw request head (through the blank line) without
// consuming it, so http.ReadRequest can parse the same bytes afterwards.
func peekHead(br *bufio.Reader) ([]byte, error) {
	n := 1
	for {
		_, err := br.Peek(n) // blocks until n bytes are buffered
		b, _ := br.Peek(br.Buffered())
		if i := headEnd(b); i >= 0 {
			return b[:i], nil
		}
		if errors.Is(err, bufio.ErrBufferFull) || len(b) >= maxHead {
			return nil, errHeadTooLarge
		}
		if err != nil {
			return nil, err
		}
		n = br.Buffered() + 1
		if n > maxHead {
			return nil, errHeadTooLarge
		}
	}
}

// headEnd returns the length of the head including its terminating blank
// line ("\n\n" or "\n\r\n", as net/textproto accepts), or -1.
func headEnd(b []byte) int {
	for i := bytes.IndexByte(b, '\n'); i >= 0; {
		rest := b[i+1:]
		switch {
		case len(rest) >= 1 && rest[0] == '\n':
			return i + 2
		case len(rest) >= 2 && rest[0] == '\r' && rest[1] == '\n':
			return i + 3
		}
		j := bytes.IndexByte(rest, '\n')
		if j < 0 {
			return -1
		}
		i += j + 1
	}
	return -1
}

// parseHead parses a raw head strictly: request line "METHOD SP TARGET SP
// PROTO", header lines "Name: value" with no whitespace in or before the
// name and no obsolete line folding. Anything else is errMalformed.
func parseHead(b []byte) (head, error) {
	var h head
	s := string(b)
	lines := strings.Split(strings.TrimRight(s, "\r\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	var ok bool
	var rest string
	h.method, rest, ok = strings.Cut(lines[0], " ")
	if !ok {
		return h, errMalformed
	}
	h.target, h.proto, ok = strings.Cut(rest, " ")
	if !ok || h.method == "" || h.target == "" || !strings.HasPrefix(h.proto, "HTTP/") {
		return h, errMalformed
	}
	for _, l := range lines[1:] {
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			return h, errMalformed
		}
		name, value, ok := strings.Cut(l, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t\r") || strings.ContainsAny(value, "\r\x00") {
			return h, errMalformed
		}
		if strings.EqualFold(name, "Host") {
			h.hosts = append(h.hosts, strings.Trim(value, " \t"))
		}
	}
	return h, nil
}
