package microvm

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/egress"
)

// shareCache points a bridge harness's home at the VM tests' kernel and
// images, so the bridge boots testImage instead of building its own.
func shareCache(t *testing.T, vmHome, airlockHome string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(airlockHome, "cache"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"images", "cache/kernel"} {
		if err := os.Symlink(filepath.Join(vmHome, d), filepath.Join(airlockHome, d)); err != nil {
			t.Fatal(err)
		}
	}
}

// mirrorRules returns the sandbox.hcl allow entry for the Debian mirror
// the image was built from when the balanced preset lacks it, and the host
// settings' IP rules when this machine resolves it to an address class the
// proxy refuses (a mirror on a private network).
func mirrorRules(t *testing.T) (mirror string, sandboxAllow, hostAllow []string) {
	t.Helper()
	u, err := url.Parse(aptMirror())
	if err != nil || u.Hostname() == "" {
		t.Fatalf("apt mirror %q: %v", aptMirror(), err)
	}
	host := u.Hostname()
	if host != "deb.debian.org" {
		sandboxAllow = append(sandboxAllow, strconv.Quote(host))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		t.Skipf("cannot resolve the Debian mirror %s: %v", host, err)
	}
	for _, a := range addrs {
		if egress.Classify(a.Unmap()) != "" {
			hostAllow = append(hostAllow, strconv.Quote(a.Unmap().String()))
		}
	}
	return host, sandboxAllow, hostAllow
}

// TestSandboxHCL is a user's path on the microVM backend, from sandbox.hcl
// through `airlock up` and `airlock exec`: docker = true gives the agent
// its own engine, which pulls from "Docker Hub" (a registry on loopback)
// through the egress proxy; the agent, as root through its passwordless sudo,
// installs a Debian package with apt-get through the egress proxy (the
// decision log records the mirror); and root in the guest still cannot
// reach the host or anything else around the proxy, even after flushing
// the guest's firewall and adding a default route.
func TestSandboxHCL(t *testing.T) {
	home := vmTestEnv(t)
	h := bridgetest.New(t)
	shareCache(t, home, h.Home())
	mirror, sandboxAllow, hostAllow := mirrorRules(t)
	// Docker Hub's registry host (in balanced) is a registry on the host's
	// loopback here, through the host settings' name override.
	reg := startRegistry(t, "registry-1.docker.io")
	reg.push(t, "airlock/hello:v1", staticHello(t))
	// Loopback takes an explicit IP rule, and this one only the
	// registry's port.
	settings := fmt.Sprintf("hosts = {\n  %q = \"127.0.0.2\"\n}\n", reg.host)
	hostAllow = append(hostAllow, fmt.Sprintf(`"127.0.0.2:%d"`, reg.port))
	settings += "allow = [" + strings.Join(hostAllow, ", ") + "]\n"
	os.WriteFile(filepath.Join(h.Home(), "egress.hcl"), []byte(settings), 0o600)
	hcl := fmt.Sprintf(`sandbox "vmbox" {
  backend = "microvm"
  image   = %q
  memory  = "1GiB"
  docker  = true
  workspace {
    mode = "mountless"
  }
  network {
    allow = [%s]
  }
}
`, testImage, strings.Join(sandboxAllow, ", "))
	tUp := time.Now()
	name := h.Up(t, hcl, t.TempDir())
	fresh := time.Since(tUp)
	sh := func(cmd string) (string, int) {
		out, errOut, code := h.Exec(t, name, "bash", "-c", cmd)
		return out + errOut, code
	}

	out, code := sh(waitDocker + `docker info --format '{{.Name}} {{.Driver}}'`)
	if code != 0 || !strings.Contains(out, name+" overlay2") {
		t.Fatalf("docker = true: want the sandbox's own engine: exit %d: %s", code, out)
	}

	// A pull through the egress proxy (a CONNECT tunnel: the engine checks
	// the registry's certificate against the CA it was given).
	certs := fmt.Sprintf("/etc/docker/certs.d/%s:%d", reg.host, reg.port)
	out, code = sh(fmt.Sprintf(`sudo mkdir -p %s && printf '%%s' '%s' | sudo tee %s/ca.crt >/dev/null && docker pull -q %s >/dev/null && docker run --rm %s`,
		certs, reg.caPEM, certs, reg.ref("airlock/hello:v1"), reg.ref("airlock/hello:v1")))
	if code != 0 || !strings.Contains(out, "hello from scratch: pid 1") {
		pl, _, _ := h.Airlock(t, "policy", "log", name)
		t.Fatalf("docker pull through the proxy: exit %d: %s\npolicy log:\n%s", code, out, pl)
	}

	t0 := time.Now()
	out, code = sh(`sudo apt-get -q -o Acquire::Languages=none update >/dev/null && sudo apt-get install -y -q --no-install-recommends hello >/dev/null && hello`)
	t.Logf("apt-get update + install through the proxy: %v", time.Since(t0).Round(time.Millisecond))
	if code != 0 || !strings.Contains(out, "Hello, world!") {
		t.Fatalf("sudo apt-get install through the proxy: exit %d: %s", code, out)
	}
	logOut, errOut, code := h.Airlock(t, "policy", "log", name, "--json")
	if code != 0 {
		t.Fatalf("policy log: %s", errOut)
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(logOut), "\n") {
		var e protocol.EgressDecision
		if json.Unmarshal([]byte(l), &e) == nil && e.Verdict == "allow" && e.Bytes > 0 {
			seen[e.Host] = true
		}
	}
	for _, host := range []string{mirror, reg.host} {
		if !seen[host] {
			t.Errorf("the decision log has no allowed request to %s:\n%s", host, logOut)
		}
	}

	templateFromDisk(t, h, name, hcl, fresh)

	port, hits := canary(t)
	out, _ = sh(fmt.Sprintf(`sudo sh -c 'iptables -F; iptables -P OUTPUT ACCEPT; ip route add default via 10.0.2.2 2>/dev/null;
		timeout 5 bash -c "echo x >/dev/tcp/10.0.2.2/%d" && echo REACHED-HOST;
		timeout 5 bash -c "echo x >/dev/tcp/10.0.2.3/53" && echo REACHED-DNS; true'`, port))
	if strings.Contains(out, "REACHED") {
		t.Errorf("root in the guest went around the proxy: %s", out)
	}
	select {
	case <-hits:
		t.Errorf("root in the guest reached the host canary on 127.0.0.1:%d", port)
	case <-time.After(500 * time.Millisecond):
	}
}

// templateFromDisk saves the sandbox (apt's hello installed, a pulled image
// in its engine) as a template with its root disk, removes it, and brings
// up a new sandbox from the template: the system and the engine's data come
// back; of the home only what the filtered archive kept does (no ~/.ssh),
// though root in the first sandbox made /home a symlink to a copy and left
// a file where an older version kept its "home already reset" marker.
func templateFromDisk(t *testing.T, h *bridgetest.Harness, name, hcl string, fresh time.Duration) {
	t.Helper()
	if out, errOut, code := h.Exec(t, name, "bash", "-c", `mkdir -p ~/.ssh && echo key > ~/.ssh/id_ed25519 && echo kept > ~/keep.txt &&
		sudo sh -c 'mkdir -p /var/lib/airlock && touch /var/lib/airlock/home-reset && cp -a /home /data && rm -rf /home && ln -s /data /home'`); code != 0 {
		t.Fatalf("seed home: %s %s", out, errOut)
	}
	t0 := time.Now()
	out, errOut, code := h.Airlock(t, "save", name, "sys")
	if code != 0 || !strings.Contains(out, "root disk") {
		t.Fatalf("save: exit %d: %s %s", code, out, errOut)
	}
	t.Logf("save (home + root disk): %v: %s", time.Since(t0).Round(time.Millisecond), strings.TrimSpace(out))
	if _, errOut, code := h.Airlock(t, "rm", name); code != 0 {
		t.Fatalf("rm: %s", errOut)
	}
	hcl2 := strings.Replace(strings.Replace(hcl, `sandbox "vmbox"`, `sandbox "vmbox2"`, 1), "  docker  = true\n", "  docker  = true\n  template = \"sys\"\n", 1)
	t1 := time.Now()
	name2 := h.Up(t, hcl2, t.TempDir())
	t.Logf("up: fresh %v, from the template %v", fresh.Round(time.Millisecond), time.Since(t1).Round(time.Millisecond))
	out, errOut, code = h.Exec(t, name2, "bash", "-c", waitDocker+`hello; docker image ls --format '{{.Repository}}' | grep -c airlock/hello; cat ~/keep.txt; ls -a ~ | grep -c '^.ssh$' || true`)
	if code != 0 {
		t.Fatalf("sandbox from the template: exit %d: %s %s", code, out, errOut)
	}
	if want := "Hello, world!\n1\nkept\n0\n"; out != want {
		t.Errorf("sandbox from the template: got %q, want %q (apt's hello, the pulled image, the kept home file, no ~/.ssh)", out, want)
	}
}
