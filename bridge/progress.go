package bridge

import (
	"bytes"
	"strings"
	"sync"
)

// progressLines turns a backend's progress output into one notification per
// line (a carriage return, as progress bars write, ends a line too), so
// `airlock up` can show a first microVM start's kernel fetch and image build
// instead of seeming to hang.
type progressLines struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	notify func(line string)
}

func (p *progressLines) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf.Write(b)
	for {
		i := bytes.IndexAny(p.buf.Bytes(), "\r\n")
		if i < 0 {
			break
		}
		line := strings.TrimSpace(string(p.buf.Next(i + 1)))
		if line != "" {
			p.notify(line)
		}
	}
	if p.buf.Len() > 4096 { // a line without end: pass it on in pieces
		p.notify(p.buf.String())
		p.buf.Reset()
	}
	return len(b), nil
}
