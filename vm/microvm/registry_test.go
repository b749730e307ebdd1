package microvm

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/airlock-sandbox/airlock/internal/egress"
)

// testRegistry is a container registry on the host's loopback standing in
// for Docker Hub: go-containerregistry's in-memory registry behind TLS on
// 127.0.0.2, with a certificate for host from a CA of its own.
type testRegistry struct {
	host  string
	port  int
	caPEM []byte
}

// ref is the image reference for repo:tag in this registry.
func (r *testRegistry) ref(repo string) string {
	return r.host + ":" + strconv.Itoa(r.port) + "/" + repo
}

func startRegistry(t *testing.T, host string) *testRegistry {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	ca, err := egress.LoadOrCreateCA(t.TempDir(), "registry test CA", nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	srv.Listener.Close()
	srv.Listener = l
	srv.TLS = &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return ca.Leaf(host) }}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &testRegistry{host: host, port: l.Addr().(*net.TCPAddr).Port, caPEM: ca.CertPEM()}
}

// push uploads a FROM scratch image holding bin as /hello (its command)
// to repo, straight to the listener (the host resolves nothing).
func (r *testRegistry) push(t *testing.T, repo string, bin []byte) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "hello", Mode: 0o755, Size: int64(len(bin)), Typeflag: tar.TypeReg})
	tw.Write(bin)
	tw.Close()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil })
	if err != nil {
		t.Fatal(err)
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Architecture, cfg.OS, cfg.Config = "amd64", "linux", v1.Config{Cmd: []string{"/hello"}}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(r.caPEM)
	addr := "127.0.0.2:" + strconv.Itoa(r.port)
	tr := &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: r.host},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}
	ref, err := name.ParseReference(r.ref(repo))
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img, remote.WithTransport(tr)); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
}
