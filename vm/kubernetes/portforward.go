package kubernetes

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// portForward opens one stream to port on the pod's loopback through the
// API server, as kubectl port-forward does: a WebSocket tunnel (the
// current protocol) falling back to SPDY on servers without it. Each call
// is its own connection to the API server, closed with the stream.
func (b *Backend) portForward(ctx context.Context, ns, pod string, port int) (net.Conn, error) {
	u := b.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("portforward").URL()
	transport, upgrader, err := spdy.RoundTripperFor(b.cfg)
	if err != nil {
		return nil, err
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, u)
	if ws, err := portforward.NewSPDYOverWebsocketDialer(u, b.cfg); err == nil {
		dialer = portforward.NewFallbackDialer(ws, dialer, func(err error) bool {
			return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
		})
	}
	type result struct {
		conn httpstream.Connection
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		c, _, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
		ch <- result{c, err}
	}()
	var conn httpstream.Connection
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("port-forward to %s/%s: %w", ns, pod, r.err)
		}
		conn = r.conn
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.conn != nil {
				r.conn.Close()
			}
		}()
		return nil, ctx.Err()
	}
	h := http.Header{}
	h.Set(corev1.StreamType, corev1.StreamTypeError)
	h.Set(corev1.PortHeader, strconv.Itoa(port))
	h.Set(corev1.PortForwardRequestIDHeader, "0")
	errStream, err := conn.CreateStream(h)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("port-forward error stream: %w", err)
	}
	errStream.Close() // we send nothing on it
	h.Set(corev1.StreamType, corev1.StreamTypeData)
	data, err := conn.CreateStream(h)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("port-forward data stream: %w", err)
	}
	pc := &pfConn{conn: conn, data: data, addr: pfAddr(fmt.Sprintf("%s/%s:%d", ns, pod, port))}
	go func() {
		// The kubelet writes here when it cannot reach the port; then the
		// data stream ends, and the reader sees this error (its first 4
		// KiB; the rest is drained, not kept).
		msg, _ := io.ReadAll(io.LimitReader(errStream, 4<<10))
		io.Copy(io.Discard, errStream)
		if len(msg) > 0 {
			pc.fail(fmt.Errorf("port-forward: %s", msg))
		}
	}()
	return pc, nil
}

// pfConn is a port-forward data stream as a net.Conn. Deadlines close the
// connection when they pass (the stream has no deadlines of its own).
type pfConn struct {
	conn httpstream.Connection
	data httpstream.Stream
	addr pfAddr

	mu     sync.Mutex
	err    error
	timer  *time.Timer
	closed bool
}

func (c *pfConn) Read(p []byte) (int, error) {
	n, err := c.data.Read(p)
	if err != nil {
		c.mu.Lock()
		if c.err != nil {
			err = c.err
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *pfConn) Write(p []byte) (int, error) { return c.data.Write(p) }

func (c *pfConn) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	c.Close()
}

func (c *pfConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	c.data.Reset()
	return c.conn.Close()
}

func (c *pfConn) LocalAddr() net.Addr  { return c.addr }
func (c *pfConn) RemoteAddr() net.Addr { return c.addr }

func (c *pfConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if !t.IsZero() && !c.closed {
		c.timer = time.AfterFunc(time.Until(t), func() { c.fail(errDeadline) })
	}
	return nil
}

func (c *pfConn) SetReadDeadline(t time.Time) error  { return c.SetDeadline(t) }
func (c *pfConn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }

type pfAddr string

func (a pfAddr) Network() string { return "kubernetes-port-forward" }
func (a pfAddr) String() string  { return string(a) }

type deadlineErr struct{}

func (deadlineErr) Error() string   { return "port-forward: deadline exceeded" }
func (deadlineErr) Timeout() bool   { return true }
func (deadlineErr) Temporary() bool { return true }

var errDeadline net.Error = deadlineErr{}
