package sshd

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// BenchmarkPeerClientsVsOpenSSH times uploads and downloads of a 64 MiB
// file with each client of the peer suite (peerclients_test.go) against
// ours (in-process) and OpenSSH's sshd, alternating, best of 3, and prints
// the ratio ours/OpenSSH per client and direction (lower is better).
// AIRLOCK_BENCH_BIG=1 adds an asyncssh SFTP upload of 1.1 GiB, which
// crosses asyncssh's own 1 GiB rekey (third_party/README.md).
func BenchmarkPeerClientsVsOpenSSH(b *testing.B) {
	for i := 0; i < b.N; i++ {
		benchPeerClients(b)
	}
}

func benchPeerClients(b *testing.B) {
	ts := startServer(b, func(c *Config) { c.Logger = nil })
	ref := startReference(b, ts)
	ports := map[string]int{"test": ts.Port, "openssh": ref}
	user := currentUser(b)
	kh := filepath.Join(ts.Dir, "known_hosts")
	shm := "/dev/shm"
	if _, err := os.Stat(shm); err != nil {
		shm = ts.Dir
	}
	work, err := os.MkdirTemp(shm, "airlock-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(work)
	os.Chmod(work, 0o755)
	const size = 64 << 20
	src := filepath.Join(work, "src")
	randomFile(b, src, size)

	ppk := filepath.Join(ts.Dir, "id.ppk")
	exec.Command("puttygen", ts.KeyFile, "-O", "private", "-o", ppk).Run()
	dbkey := filepath.Join(ts.Dir, "id.dropbear")
	exec.Command("dropbearconvert", "openssh", "dropbear", ts.KeyFile, dbkey).Run()
	home := filepath.Join(ts.Dir, "home")
	os.MkdirAll(home+"/.ssh", 0o700)
	os.WriteFile(home+"/.ssh/known_hosts", []byte("127.0.0.1 "+string(gossh.MarshalAuthorizedKey(ts.HostPublic))), 0o600)
	os.WriteFile(home+"/rclone.conf", nil, 0o600)
	pub := ts.KeyFile + ".pub"
	os.WriteFile(pub, gossh.MarshalAuthorizedKey(ts.ClientKey.PublicKey()), 0o644)
	sum := sha256.Sum256(ts.HostPublic.Marshal())
	hostSum := base64.RawStdEncoding.EncodeToString(sum[:])
	env := []string{"HOME=" + home, "RCLONE_CONFIG=" + home + "/rclone.conf"}
	py, _ := filepath.Abs("testdata/asyncssh/transfer.py")

	// Each client: a command uploading src to dst, and one downloading
	// src to dst, for a server (host name in ts.Config, and port).
	type client struct {
		name, tool string
		up, down   func(host string, port int, dst string) []string
	}
	target := user + "@127.0.0.1"
	putty := []string{"-batch", "-q", "-i", ppk, "-hostkey", gossh.FingerprintSHA256(ts.HostPublic)}
	curl := []string{"curl", "-sS", "--key", ts.KeyFile, "--pubkey", pub, "--hostpubsha256", hostSum}
	rclone := func(port int) string {
		return fmt.Sprintf(":sftp,host=127.0.0.1,port=%d,user=%s,key_file=%s,known_hosts_file=%s:", port, user, ts.KeyFile, kh)
	}
	lftp := func(host, cmd string) []string {
		return []string{"lftp", "-c", fmt.Sprintf("set sftp:connect-program 'ssh -a -x -F %s'; open sftp://%s; %s", ts.Config, host, cmd)}
	}
	clients := []client{
		{"openssh scp", "scp", // SFTP protocol
			func(h string, p int, dst string) []string {
				return []string{"scp", "-q", "-F", ts.Config, src, h + ":" + dst}
			},
			func(h string, p int, dst string) []string {
				return []string{"scp", "-q", "-F", ts.Config, h + ":" + src, dst}
			}},
		{"pscp", "pscp",
			func(h string, p int, dst string) []string {
				return append(append([]string{"pscp", "-P", fmt.Sprint(p)}, putty...), src, target+":"+dst)
			},
			func(h string, p int, dst string) []string {
				return append(append([]string{"pscp", "-P", fmt.Sprint(p)}, putty...), target+":"+src, dst)
			}},
		{"curl sftp", "curl",
			func(h string, p int, dst string) []string {
				return append(curl, "-T", src, fmt.Sprintf("sftp://%s:%d%s", target, p, dst))
			},
			func(h string, p int, dst string) []string {
				return append(curl, "-o", dst, fmt.Sprintf("sftp://%s:%d%s", target, p, src))
			}},
		{"lftp", "lftp",
			func(h string, p int, dst string) []string { return lftp(h, "put "+src+" -o "+dst) },
			func(h string, p int, dst string) []string { return lftp(h, "get "+src+" -o "+dst) }},
		{"rclone", "rclone",
			func(h string, p int, dst string) []string {
				return []string{"rclone", "--sftp-shell-type", "unix", "copyto", src, rclone(p) + dst}
			},
			func(h string, p int, dst string) []string {
				return []string{"rclone", "--sftp-shell-type", "unix", "copyto", rclone(p) + src, dst}
			}},
		{"asyncssh", "/usr/bin/python3",
			func(h string, p int, dst string) []string {
				return []string{"/usr/bin/python3", py, "put", fmt.Sprint(p), user, ts.KeyFile, kh, src, dst}
			},
			func(h string, p int, dst string) []string {
				return []string{"/usr/bin/python3", py, "get", fmt.Sprint(p), user, ts.KeyFile, kh, src, dst}
			}},
	}
	run := func(argv []string) time.Duration {
		t0 := time.Now()
		out, errs, code := cmdResult(env, "", argv[0], argv[1:]...)
		if code != 0 {
			b.Fatalf("%v: exit %d %s %s", argv, code, out, errs)
		}
		return time.Since(t0)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\nclients against airlock sshd vs OpenSSH 9.2 sshd, 64 MiB, best of 3 (loopback); load average %s\n",
		strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Printf("%-14s %-9s %10s %10s %7s\n", "client", "", "ours", "openssh", "ratio")
	for _, c := range clients {
		if _, err := exec.LookPath(c.tool); err != nil {
			fmt.Printf("%-14s skipped: %s not installed\n", c.name, c.tool)
			continue
		}
		for _, dir := range []string{"upload", "download"} {
			bestOf := map[string]time.Duration{}
			for i := 0; i < 3; i++ {
				for _, h := range peerHosts {
					dst := filepath.Join(work, "dst-"+h)
					os.Remove(dst)
					var d time.Duration
					if dir == "upload" {
						d = run(c.up(h, ports[h], dst))
					} else {
						d = run(c.down(h, ports[h], dst))
					}
					if st, err := os.Stat(dst); err != nil || st.Size() != size {
						b.Fatalf("%s %s to %s: %v", c.name, dir, h, err)
					}
					if bestOf[h] == 0 || d < bestOf[h] {
						bestOf[h] = d
					}
				}
			}
			ratio := bestOf["test"].Seconds() / bestOf["openssh"].Seconds()
			fmt.Printf("%-14s %-9s %10s %10s %6.2fx\n", c.name, dir, bestOf["test"].Round(time.Millisecond),
				bestOf["openssh"].Round(time.Millisecond), ratio)
			b.ReportMetric(ratio, strings.ReplaceAll(c.name, " ", "-")+"-"+dir+"-time-ratio")
		}
	}
	if os.Getenv("AIRLOCK_BENCH_BIG") == "1" {
		big := filepath.Join(work, "big")
		randomFile(b, big, 1100<<20)
		os.Remove(src)
		for _, h := range peerHosts {
			dst := filepath.Join(work, "dst-"+h)
			d := run([]string{"/usr/bin/python3", py, "put", fmt.Sprint(ports[h]), user, ts.KeyFile, kh, big, dst})
			os.Remove(dst)
			fmt.Printf("asyncssh 1.1 GiB upload (crosses its 1 GiB rekey) to %s: %s\n", h, d.Round(time.Millisecond))
		}
	}
}
