package kubernetes

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// TestEgressOnlyThroughTunnel: the pod reaches nothing on the network
// (not the host's address, not the API server), and a host service
// reaches it only through a reverse forward on the SSH connection that
// rides the port-forward — the path the bridge's egress proxy, signer and
// MCP take.
func TestEgressOnlyThroughTunnel(t *testing.T) {
	b := newTestBackend(t, t.TempDir())
	o := vmtest.Options{AgentBinary: agentBin, StartTimeout: 2 * time.Minute}
	spec, keys := vmtest.NewSpec(t, b, uniqueID("egress"), o)
	vmtest.Up(t, b, spec, o)
	cl := vmtest.Connect(t, b, spec.ID, keys)

	// A host HTTP server on every address.
	l, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "host-says-hi") }))
	port := l.Addr().(*net.TCPAddr).Port
	hostIP := ""
	if addrs, _ := net.InterfaceAddrs(); len(addrs) > 0 {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
				hostIP = n.IP.String()
				break
			}
		}
	}

	// Reverse forward: the sandbox's 127.0.0.1:3128 is the host server.
	rl, err := cl.Listen("tcp", "127.0.0.1:3128")
	if err != nil {
		t.Fatalf("remote forward: %v", err)
	}
	defer rl.Close()
	go func() {
		for {
			c, err := rl.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				h, err := net.Dial("tcp", l.Addr().String())
				if err != nil {
					return
				}
				defer h.Close()
				go copyClose(h, c)
				copyClose(c, h)
			}()
		}
	}()
	out := vmtest.MustExec(t, cl, "curl -sS -m 10 http://127.0.0.1:3128/")
	if out != "host-says-hi" {
		t.Fatalf("through the tunnel: %q", out)
	}
	direct := []string{"127.0.0.1:" + fmt.Sprint(port) + " (the pod's own loopback)", strings.TrimPrefix(b.cfg.Host, "https://") + " (the API server)"}
	if hostIP != "" {
		direct = append(direct, fmt.Sprintf("%s:%d (the host)", hostIP, port))
	}
	for _, d := range direct {
		addr := strings.Fields(d)[0]
		stdout, stderr, code := vmtest.Exec(t, cl, "curl -sS -m 5 -k http://"+addr+"/")
		if code == 0 {
			t.Errorf("sandbox reached %s directly: %q", d, stdout)
		} else {
			t.Logf("%s: refused inside (%s)", d, strings.TrimSpace(stderr))
		}
	}
	if ip := vmtest.MustExec(t, cl, "cat /proc/net/route | wc -l; ls /sys/class/net"); !strings.Contains(ip, "lo") || strings.Contains(ip, "eth0") {
		t.Errorf("pod network: %q, want loopback only", ip)
	}
}

func copyClose(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	if tc, ok := dst.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
	}
}
