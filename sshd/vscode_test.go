package sshd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/proxy"
)

// vscodeServerJS stands in for the VS Code server: an HTTP server on a
// random loopback port that records its pid and port.
const vscodeServerJS = `
const http = require('http');
const fs = require('fs');
const s = http.createServer((q, r) => r.end('vscode-server ' + q.url));
s.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(process.argv[2] + '/pid', String(process.pid));
  fs.writeFileSync(process.argv[2] + '/port', String(s.address().port));
});
`

// vscodeInstallScript mirrors the script Remote-SSH pipes into `bash`: start
// the server in the background unless it runs, print the markers, then keep
// the channel alive.
func vscodeInstallScript(uuid, dir string) string {
	return fmt.Sprintf(`
echo "%[1]s: start"
W=%[2]q
if [ -s "$W/pid" ] && kill -0 "$(cat "$W/pid")" 2>/dev/null; then
  echo "reusing server"
else
  rm -f "$W/port"
  node "$W/server.js" "$W" &> "$W/server.log" &
  for i in $(seq 1 400); do [ -s "$W/port" ] && break; sleep 0.05; done
fi
echo "listeningOn==$(cat "$W/port")=="
echo "%[1]s: end"
while true; do sleep 180; printf ' '; done
`, uuid, dir)
}

type vscodeClient struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	port  int // remote server port from listeningOn==N==
	socks string
	out   string
}

// startVSCodeClient runs `ssh -T -D PORT host bash` with the install script
// on a stdin that stays open, and parses the markers.
func startVSCodeClient(t *testing.T, ts *testServer, dir, uuid string) *vscodeClient {
	t.Helper()
	sp := freePort(t)
	cmd := exec.Command("ssh", "-F", ts.Config, "-T", "-D", fmt.Sprintf("127.0.0.1:%d", sp), "test", "bash")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	io.WriteString(stdin, vscodeInstallScript(uuid, dir))
	c := &vscodeClient{cmd: cmd, stdin: stdin, socks: fmt.Sprintf("127.0.0.1:%d", sp)}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	re := regexp.MustCompile(`listeningOn==(\d+)==`)
	deadline := time.After(60 * time.Second)
	var out strings.Builder
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("ssh ended before the end marker; out %q stderr %q", out.String(), errb.String())
			}
			out.WriteString(l + "\n")
			if m := re.FindStringSubmatch(l); m != nil {
				c.port, _ = strconv.Atoi(m[1])
			}
			if l == uuid+": end" {
				if !strings.HasPrefix(out.String(), uuid+": start\n") || c.port == 0 {
					t.Fatalf("bad marker output %q", out.String())
				}
				c.out = out.String()
				go func() {
					for range lines { // the keep-alive spaces
					}
				}()
				waitListening(t, "tcp", c.socks)
				return c
			}
		case <-deadline:
			t.Fatalf("no end marker; out %q stderr %q", out.String(), errb.String())
		}
	}
}

// requests makes n HTTP requests (conc at a time) to the remote server
// through the client's SOCKS port, each on a new connection.
func (c *vscodeClient) requests(t *testing.T, n, conc int) {
	t.Helper()
	d, err := proxy.SOCKS5("tcp", c.socks, nil, &net.Dialer{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.Dial(network, addr)
		},
	}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	fails := 0
	sem := make(chan struct{}, conc)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			resp, err := hc.Get(fmt.Sprintf("http://127.0.0.1:%d/r%d", c.port, i))
			var body []byte
			if err == nil {
				body, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if err != nil || string(body) != fmt.Sprintf("vscode-server /r%d", i) {
				mu.Lock()
				if fails++; fails <= 3 {
					t.Errorf("request %d: %v %q", i, err, body)
				}
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
}

// TestVSCodeRemoteSSHFlow replays VS Code Remote-SSH: `ssh -T -D PORT host
// bash`, install script on stdin with markers, a background server that
// must survive the client being killed, and many connections through the
// SOCKS port, before and after reconnecting.
func TestVSCodeRemoteSSHFlow(t *testing.T) {
	skipShort(t)
	needTool(t, "ssh")
	needTool(t, "node")
	ts := startServer(t, nil)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "server.js"), []byte(vscodeServerJS), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if b, err := os.ReadFile(filepath.Join(dir, "pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}()
	c1 := startVSCodeClient(t, ts, dir, "3f2a-first")
	c1.requests(t, 200, 40)

	// The user closes the window / the network drops: the client dies.
	c1.cmd.Process.Kill()
	c1.cmd.Wait()
	time.Sleep(500 * time.Millisecond)
	b, _ := os.ReadFile(filepath.Join(dir, "pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid == 0 || !pidAlive(pid) {
		t.Fatalf("background server (pid %d) died with the first client", pid)
	}

	c2 := startVSCodeClient(t, ts, dir, "9c1d-second")
	if !strings.Contains(c2.out, "reusing server") || c2.port != c1.port {
		t.Fatalf("second client did not find the running server: %q (port %d vs %d)", c2.out, c2.port, c1.port)
	}
	c2.requests(t, 200, 40)
	c2.stdin.Close()
}
