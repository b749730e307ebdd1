package sshd

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pkg/sftp"
	gossh "golang.org/x/crypto/ssh"
)

// Interop checks for issue 15, each run against our server and OpenSSH's
// (the reference must pass too, so the expectation is OpenSSH's behaviour,
// not ours).

// peerClient dials host ("test" = ours, "openssh") with x/crypto/ssh.
func peerClient(t *testing.T, ts *testServer, refPort int, host string) *gossh.Client {
	t.Helper()
	port, user := ts.Port, "tester"
	if host == "openssh" {
		port, user = refPort, currentUser(t)
	}
	c, err := gossh.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &gossh.ClientConfig{
		User: user, Auth: []gossh.AuthMethod{gossh.PublicKeys(ts.ClientKey)},
		HostKeyCallback: gossh.FixedHostKey(ts.HostPublic), Timeout: 20 * time.Second,
	})
	if err != nil {
		t.Fatalf("%s: %v", host, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// forPeers runs f against both servers as subtests.
func forPeers(t *testing.T, f func(t *testing.T, ts *testServer, refPort int, host string)) {
	needTool(t, "ssh")
	ts := startServer(t, nil)
	refPort := startReference(t, ts)
	for _, host := range peerHosts {
		t.Run(host, func(t *testing.T) { f(t, ts, refPort, host) })
	}
}

// TestSFTPPkgClient: pkg/sftp's client (what Go tools such as rclone use).
func TestSFTPPkgClient(t *testing.T) {
	forPeers(t, func(t *testing.T, ts *testServer, refPort int, host string) {
		c, err := sftp.NewClient(peerClient(t, ts, refPort, host))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		dir := t.TempDir()
		// 1. Relative symlink targets are stored and read back verbatim.
		for i, target := range []string{"target", "../x", "a/./b/../c"} {
			link := filepath.Join(dir, fmt.Sprint("link", i))
			if err := c.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.Readlink(link); got != target {
				t.Errorf("symlink %q stored as %q", target, got)
			}
			if got, err := c.ReadLink(link); got != target {
				t.Errorf("readlink %q = %q %v", target, got, err)
			}
		}
		// 4. Append: writes go to the end whatever the offset.
		f := filepath.Join(dir, "app")
		os.WriteFile(f, []byte("abc"), 0o644)
		w, err := c.OpenFile(f, os.O_WRONLY|os.O_APPEND)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("def"))
		// 5. fsync@openssh.com.
		if err := w.Sync(); err != nil {
			t.Errorf("fsync: %v", err)
		}
		w.Close()
		if b, _ := os.ReadFile(f); string(b) != "abcdef" {
			t.Errorf("append: %q", b)
		}
		// 6. Plain rename refuses to replace; posix-rename replaces.
		a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		os.WriteFile(a, []byte("A"), 0o644)
		os.WriteFile(b, []byte("B"), 0o644)
		if err := c.Rename(a, b); err == nil {
			t.Error("rename replaced an existing file")
		}
		if got, _ := os.ReadFile(b); string(got) != "B" {
			t.Errorf("rename target now %q", got)
		}
		if err := c.PosixRename(a, b); err != nil {
			t.Errorf("posix-rename: %v", err)
		}
		if got, _ := os.ReadFile(b); string(got) != "A" {
			t.Errorf("posix-rename target %q", got)
		}
		// 8. atime is reported separately from mtime.
		at, mt := time.Unix(1000000000, 0), time.Unix(1500000000, 0)
		os.Chtimes(b, at, mt)
		fi, err := c.Stat(b)
		if err != nil {
			t.Fatal(err)
		}
		if st, ok := fi.Sys().(*sftp.FileStat); !ok || st.Atime != 1000000000 || st.Mtime != 1500000000 {
			t.Errorf("stat times %+v", fi.Sys())
		}
		// 3. mkdir: pkg/sftp sends no mode; the default is 0777 minus umask
		// (both servers), then chmod.
		d := filepath.Join(dir, "d")
		if err := c.Mkdir(d); err != nil {
			t.Fatal(err)
		}
		if err := c.Chmod(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(d); st.Mode().Perm() != 0o700 {
			t.Errorf("dir mode %v", st.Mode())
		}
	})
}

// rawSFTP is a minimal SFTP client for requests no library exposes
// (OpenSSH's newer extensions).
type rawSFTP struct {
	w    io.WriteCloser
	r    io.Reader
	id   uint32
	exts map[string]string
}

func newRawSFTP(t *testing.T, c *gossh.Client) *rawSFTP {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	w, _ := s.StdinPipe()
	r, _ := s.StdoutPipe()
	if err := s.RequestSubsystem("sftp"); err != nil {
		t.Fatal(err)
	}
	rs := &rawSFTP{w: w, r: r, exts: map[string]string{}}
	typ, body := rs.call(t, fxpInit, []byte{0, 0, 0, 3})
	if typ != fxpVersion {
		t.Fatalf("init: type %d", typ)
	}
	p := &sftpReader{b: body[4:]} // after the version
	for len(p.b) > 0 && !p.bad {
		name, data := p.str(), p.str()
		rs.exts[name] = data
	}
	return rs
}

// call sends one request (body after the id for all but INIT) and returns
// the reply's type and body after its id.
func (rs *rawSFTP) call(t *testing.T, typ byte, body []byte) (byte, []byte) {
	t.Helper()
	var pkt []byte
	if typ == fxpInit {
		pkt = sftpPacket(typ, body)
	} else {
		rs.id++
		pkt = sftpPacket(typ, append(binary.BigEndian.AppendUint32(nil, rs.id), body...))
	}
	if _, err := rs.w.Write(pkt); err != nil {
		t.Fatal(err)
	}
	var hdr [5]byte
	if _, err := io.ReadFull(rs.r, hdr[:]); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, binary.BigEndian.Uint32(hdr[:4])-1)
	if _, err := io.ReadFull(rs.r, b); err != nil {
		t.Fatal(err)
	}
	if typ == fxpInit {
		return hdr[4], b
	}
	return hdr[4], b[4:]
}

func (rs *rawSFTP) ext(t *testing.T, name string, body []byte) (byte, []byte) {
	t.Helper()
	return rs.call(t, fxpExtended, append(sftpStr(nil, name), body...))
}

func (rs *rawSFTP) open(t *testing.T, path string, pflags uint32) string {
	t.Helper()
	b := binary.BigEndian.AppendUint32(sftpStr(nil, path), pflags)
	typ, r := rs.call(t, fxpOpen, binary.BigEndian.AppendUint32(b, 0))
	if typ != fxpHandle {
		t.Fatalf("open %s: reply %d %x", path, typ, r)
	}
	return (&sftpReader{b: r}).str()
}

func statusOf(typ byte, b []byte) int {
	if typ != fxpStatus || len(b) < 4 {
		return -1
	}
	return int(binary.BigEndian.Uint32(b))
}

// TestSFTPOpenSSHExtensions: 7. the extensions OpenSSH's sftp-server has,
// spoken on the wire; 3. mkdir with a mode.
func TestSFTPOpenSSHExtensions(t *testing.T) {
	forPeers(t, func(t *testing.T, ts *testServer, refPort int, host string) {
		rs := newRawSFTP(t, peerClient(t, ts, refPort, host))
		for _, e := range []string{"posix-rename@openssh.com", "statvfs@openssh.com", "fstatvfs@openssh.com",
			"hardlink@openssh.com", "fsync@openssh.com", "lsetstat@openssh.com", "limits@openssh.com",
			"expand-path@openssh.com", "copy-data"} {
			if _, ok := rs.exts[e]; !ok {
				t.Errorf("extension %s not advertised (have %v)", e, rs.exts)
			}
		}
		dir := t.TempDir()
		// mkdir 0700 (sshfs, paramiko's mkdtemp, gpg).
		mk := binary.BigEndian.AppendUint32(sftpStr(nil, dir+"/m"), attrPerm)
		if typ, b := rs.call(t, fxpMkdir, binary.BigEndian.AppendUint32(mk, 0o700)); statusOf(typ, b) != fxOK {
			t.Errorf("mkdir: %d %x", typ, b)
		}
		if st, err := os.Stat(dir + "/m"); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("mkdir mode: %v %v", st.Mode(), err)
		}
		// copy-data: whole file (length 0), server side.
		os.WriteFile(dir+"/src", []byte(strings.Repeat("0123456789", 10000)), 0o644)
		rh := rs.open(t, dir+"/src", fxfRead)
		wh := rs.open(t, dir+"/dst", fxfWrite|fxfCreat|fxfTrunc)
		body := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(sftpStr(nil, rh), 0), 0)
		body = binary.BigEndian.AppendUint64(sftpStr(body, wh), 0)
		if typ, b := rs.ext(t, "copy-data", body); statusOf(typ, b) != fxOK {
			t.Errorf("copy-data: %d %x", typ, b)
		}
		rs.call(t, fxpClose, sftpStr(nil, wh))
		if a, b := mustRead(t, dir+"/src"), mustRead(t, dir+"/dst"); a != b {
			t.Errorf("copy-data copied %d of %d bytes", len(b), len(a))
		}
		// lsetstat: times on the link itself, not its target.
		os.Symlink("src", dir+"/ln")
		ls := binary.BigEndian.AppendUint32(sftpStr(nil, dir+"/ln"), attrACModTime)
		ls = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(ls, 1000000000), 1100000000)
		if typ, b := rs.ext(t, "lsetstat@openssh.com", ls); statusOf(typ, b) != fxOK {
			t.Errorf("lsetstat: %d %x", typ, b)
		}
		var lst, tst syscall.Stat_t
		syscall.Lstat(dir+"/ln", &lst)
		syscall.Stat(dir+"/ln", &tst)
		if lst.Mtim.Sec != 1100000000 || tst.Mtim.Sec == 1100000000 {
			t.Errorf("lsetstat: link mtime %d, target mtime %d", lst.Mtim.Sec, tst.Mtim.Sec)
		}
		// expand-path: "~" is the account's home.
		home, _ := os.UserHomeDir()
		home, _ = filepath.EvalSymlinks(home)
		if typ, b := rs.ext(t, "expand-path@openssh.com", sftpStr(nil, "~")); typ != fxpName || !strings.Contains(string(b), home) {
			t.Errorf("expand-path ~: %d %q, want %s", typ, b, home)
		}
		// users-groups-by-id (OpenSSH 9.5+; 9.2's sftp-server lacks it, so
		// only ours is checked).
		if host == "test" {
			ids := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 0), 4000000)
			typ, b := rs.ext(t, "users-groups-by-id@openssh.com", sftpStr(sftpStr(nil, string(ids)), string(ids[:4])))
			p := &sftpReader{b: b}
			users, groups := &sftpReader{b: p.bytes()}, &sftpReader{b: p.bytes()}
			if u0, u1, g0 := users.str(), users.str(), groups.str(); typ != fxpExtendedReply || u0 != "root" || u1 != "" || g0 != "root" {
				t.Errorf("users-groups-by-id: %d %q %q %q", typ, u0, u1, g0)
			}
		}
	})
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSFTPOpenSSHClient: OpenSSH's sftp CLI commands that depend on the
// fixes: ln -s (relative target), cp (copy-data), chmod -h (lsetstat),
// put -f (fsync). (9.2's client has no "cd ~"; expand-path is checked on
// the wire above.)
func TestSFTPOpenSSHClient(t *testing.T) {
	needTool(t, "sftp")
	forPeers(t, func(t *testing.T, ts *testServer, refPort int, host string) {
		dir := t.TempDir()
		os.WriteFile(dir+"/f", []byte("data"), 0o644)
		batch := strings.Join([]string{
			"cd " + dir,
			"ln -s f rel",
			"cp f copy",
			"chmod -h 600 f",
			"put -f " + dir + "/f synced",
		}, "\n") + "\n"
		out, errs, code := ts.run(t, batch, "sftp", "-F", ts.Config, "-vvv", "-b", "-", host)
		if code != 0 {
			t.Fatalf("sftp: %d\n%s\n%s", code, out, grepLine(errs, "sftp>"))
		}
		if got, _ := os.Readlink(dir + "/rel"); got != "f" {
			t.Errorf("ln -s f rel: stored %q", got)
		}
		if mustRead(t, dir+"/copy") != "data" || mustRead(t, dir+"/synced") != "data" {
			t.Error("cp / put -f content")
		}
		if st, _ := os.Stat(dir + "/f"); st.Mode().Perm() != 0o600 {
			t.Errorf("chmod -h: %v", st.Mode())
		}
		if !strings.Contains(errs, "Sending SSH2_FXP_EXTENDED(fsync@openssh.com)") &&
			!strings.Contains(errs, "fsync@openssh.com") {
			t.Errorf("put -f sent no fsync")
		}
	})
}
