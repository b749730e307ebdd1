package bridge

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// TestVSCodeJSONRPCInterop: the real vscode-jsonrpc (the extension's client
// library, from editor-ext/node_modules) talks to the daemon over its socket.
func TestVSCodeJSONRPCInterop(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Missing(t, "no node")
	}
	mods, _ := filepath.Abs(filepath.Join("..", "editor-ext", "node_modules"))
	if _, err := os.Stat(filepath.Join(mods, "vscode-jsonrpc")); err != nil {
		testenv.Missing(t, "editor-ext/node_modules/vscode-jsonrpc not installed (npm ci in editor-ext)")
	}
	home, err := os.MkdirTemp("", "alv-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(home)
	d, err := New(Options{Home: home, Self: "/bin/airlock"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	sock := filepath.Join(home, "bridge.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go d.Serve(l)
	script := `
const net = require('net');
const rpc = require('vscode-jsonrpc/node');
const sock = net.connect(process.argv[1], async () => {
  const c = rpc.createMessageConnection(new rpc.SocketMessageReader(sock), new rpc.SocketMessageWriter(sock));
  c.listen();
  const out = [];
  out.push(JSON.stringify(await c.sendRequest('sandbox.list', {})));
  try { await c.sendRequest('no.such', {}); } catch (e) { out.push('err ' + e.code + ' ' + e.message); }
  try { await c.sendRequest('sandbox.stop', {name: 'ghost'}); } catch (e) { out.push('err ' + e.code + ' ' + e.message); }
  console.log(out.join('\n'));
  c.dispose(); sock.end();
});`
	cmd := exec.Command(node, "-e", script, sock)
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	want := `{"sandboxes":[]}
err -32601 unknown method "no.such"
err -32001 no sandbox named ghost (see ` + "`airlock ls`" + `)`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}
