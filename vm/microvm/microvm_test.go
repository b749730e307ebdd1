package microvm

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/internal/testenv"
	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// testImage is the image the VM tests boot: minbase + git, sudo and the
// Docker engine. Renamed when its packages change, so caches rebuild it.
const testImage = "test-docker"

// testImageOptions builds testImage.
var testImageOptions = ImageOptions{Name: testImage, Packages: []string{"git", "sudo"}, Docker: true}

// testAgent is the static airlock-agent bridgetest builds once per checkout.
func testAgent(t testing.TB) string {
	return filepath.Join(bridgetest.Binaries(t), "airlock-agent")
}

// vmTestEnv skips unless VM tests can run here, and prepares the cached
// kernel and test image.
func vmTestEnv(t testing.TB) (home string) {
	if testing.Short() {
		t.Skip("microVM boot tests are long; run without -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("building the test image needs root (debootstrap)")
	}
	if err := New("", "").Available(context.Background()); err != nil {
		testenv.Missing(t, "%v", err)
	}
	home = testHome(t)
	ctx := context.Background()
	if _, err := EnsureKernel(ctx, filepath.Join(home, "cache"), testLog{t}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ImagePath(home, testImage)); err != nil {
		if _, err := BuildImage(ctx, home, testImageOptions, testLog{t}); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Logf("%s", bytes.TrimRight(p, "\n"))
	return len(p), nil
}

type keys struct {
	hostPEM    []byte
	authorized []byte
	client     gossh.Signer
}

func newKeys(t testing.TB) keys {
	_, hk, _ := ed25519.GenerateKey(rand.Reader)
	blk, err := gossh.MarshalPrivateKey(hk, "")
	if err != nil {
		t.Fatal(err)
	}
	_, ck, _ := ed25519.GenerateKey(rand.Reader)
	cs, err := gossh.NewSignerFromKey(ck)
	if err != nil {
		t.Fatal(err)
	}
	return keys{hostPEM: pem.EncodeToMemory(blk), authorized: gossh.MarshalAuthorizedKey(cs.PublicKey()), client: cs}
}

func testSpec(t testing.TB, k keys, id string) vm.Spec {
	return vmtest.Complete(vm.Spec{
		ID: id, Image: testImage, CPUs: 1, MemoryBytes: 512 << 20, DiskBytes: 2 << 30,
		Env:            map[string]string{"AIRLOCK_TEST": "1"},
		Files:          []vm.File{{Path: "/etc/airlock-test", Mode: 0o644, Data: []byte("hello\n")}},
		HostKeyPEM:     k.hostPEM,
		AuthorizedKeys: k.authorized,
		AgentBinary:    testAgent(t),
		Workspace:      vm.Workspace{Mode: vm.ModeMountless},
	})
}

// sshRun runs cmd in the sandbox over the backend's Dial.
func sshRun(t testing.TB, b vm.Backend, id string, k keys, cmd string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := b.Dial(ctx, id)
	if err != nil {
		return "", err
	}
	cc, chans, reqs, err := gossh.NewClientConn(conn, id, &gossh.ClientConfig{
		User: "agent", Auth: []gossh.AuthMethod{gossh.PublicKeys(k.client)},
		HostKeyCallback: func(string, net.Addr, gossh.PublicKey) error { return nil },
	})
	if err != nil {
		conn.Close()
		return "", err
	}
	c := gossh.NewClient(cc, chans, reqs)
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	out, err := s.CombinedOutput(cmd)
	return string(out), err
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }
