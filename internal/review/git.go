package review

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/hostgit"
)

// gitCmd is one git invocation on the host, hardened by package hostgit
// (no hooks, no fsmonitor, no system config, bounded stderr).
type gitCmd struct {
	dir   string   // working directory ("" = inherit)
	env   []string // extra environment
	stdin io.Reader
}

// indexFile is the index git is told to use (GIT_INDEX_FILE), or "".
func (g gitCmd) indexFile() string {
	file := ""
	for _, e := range g.env {
		if v, ok := strings.CutPrefix(e, "GIT_INDEX_FILE="); ok {
			file = v
		}
	}
	return file
}

func (g gitCmd) run(ctx context.Context, args ...string) ([]byte, error) {
	return hostgit.Cmd{Dir: g.dir, Env: g.env, Stdin: g.stdin}.Run(ctx, args...)
}

// rawEntry is one line of `git diff-tree -r -z --raw`.
type rawEntry struct {
	oldMode, newMode uint32
	oldOID, newOID   string
	path             string
}

const zeroOID = "0000000000000000000000000000000000000000"

// diffTrees lists paths that differ between two tree-ish objects.
func diffTrees(ctx context.Context, g gitCmd, a, b string) ([]rawEntry, error) {
	out, err := g.run(ctx, "diff-tree", "-r", "-z", "--raw", "--no-renames", "--full-index", a, b)
	if err != nil {
		return nil, err
	}
	var es []rawEntry
	parts := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(parts); i += 2 {
		h := string(parts[i])
		if !strings.HasPrefix(h, ":") {
			return nil, fmt.Errorf("diff-tree: unexpected output %q", h)
		}
		f := strings.Fields(h[1:])
		if len(f) < 5 {
			return nil, fmt.Errorf("diff-tree: unexpected output %q", h)
		}
		om, _ := strconv.ParseUint(f[0], 8, 32)
		nm, _ := strconv.ParseUint(f[1], 8, 32)
		es = append(es, rawEntry{oldMode: uint32(om), newMode: uint32(nm), oldOID: f[2], newOID: f[3], path: string(parts[i+1])})
	}
	return es, nil
}

// maxScanBytes bounds the content read per file for scanning, and
// maxScanTotal the content held for one review (files past it are reported
// as not scanned).
const (
	maxScanBytes = 4 << 20
	maxScanTotal = 256 << 20
)

// blobReader reads blobs through one `git cat-file --batch` process. A
// lazy one (direct mode) first reads from review's own object store in
// Go, and starts git only for what that cannot answer.
type blobReader struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader

	start   func() (*blobReader, error) // starts git; nil once started
	store   *objStore
	rev     string            // the tree entries describes ("REV:PATH" reads)
	entries []ixEntry         // sorted by path
	byPath  map[string]uint32 // path -> index in entries, built on first use
}

// newLazyBlobReader reads what it can from the private objects directory
// and the snapshot's index entries, and starts git on first need.
func newLazyBlobReader(ctx context.Context, g gitCmd, objects, rev string, entries []ixEntry) *blobReader {
	return &blobReader{start: func() (*blobReader, error) { return newBlobReader(ctx, g) },
		store: &objStore{dir: objects}, rev: rev, entries: entries}
}

// ensure starts git if it is not running yet.
func (r *blobReader) ensure() error {
	if r.start == nil {
		return nil
	}
	g, err := r.start()
	if err != nil {
		return err
	}
	r.cmd, r.in, r.out, r.start = g.cmd, g.in, g.out, nil
	return nil
}

func newBlobReader(ctx context.Context, g gitCmd) (*blobReader, error) {
	name, argv, err := hostgit.Limited(0, append(append([]string{}, hostgit.Hardening...), "cat-file", "--batch")...)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, name, argv...)
	cmd.Dir = g.dir
	cmd.Env = append(append(os.Environ(), "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0", "GIT_CONFIG_NOSYSTEM=1", hostgit.MallocEnv), g.env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git cat-file: %w", err)
	}
	return &blobReader{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

// answer reads git's answer to one request for a blob.
func (r *blobReader) answer(max int64) ([]byte, int64, error) {
	hdr, err := r.out.ReadString('\n')
	if err != nil {
		return nil, 0, err
	}
	f := strings.Fields(hdr)
	if len(f) != 3 {
		return nil, 0, fmt.Errorf("cat-file: %s", strings.TrimSpace(hdr))
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return nil, 0, err
	}
	var data []byte
	if size <= max {
		data = make([]byte, size)
		if _, err := io.ReadFull(r.out, data); err != nil {
			return nil, 0, err
		}
	} else if _, err := io.CopyN(io.Discard, r.out, size); err != nil {
		return nil, 0, err
	}
	if _, err := r.out.Discard(1); err != nil { // trailing LF
		return nil, 0, err
	}
	return data, size, nil
}

// readMaybe is read for a name that may not exist ("REV:PATH"): a missing
// object, or one that is not a blob, is (nil, false).
func (r *blobReader) readMaybe(name string, max int64) ([]byte, bool, error) {
	if data, ok, known := r.readMaybeGo(name, max); known {
		return data, ok, nil
	}
	if err := r.ensure(); err != nil {
		return nil, false, err
	}
	if _, err := io.WriteString(r.in, name+"\n"); err != nil {
		return nil, false, err
	}
	hdr, err := r.out.ReadString('\n')
	if err != nil {
		return nil, false, err
	}
	f := strings.Fields(hdr)
	if len(f) != 3 {
		return nil, false, nil // "NAME missing" / "ambiguous"
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return nil, false, err
	}
	var data []byte
	if size <= max {
		data = make([]byte, size)
		if _, err := io.ReadFull(r.out, data); err != nil {
			return nil, false, err
		}
	} else if _, err := io.CopyN(io.Discard, r.out, size); err != nil {
		return nil, false, err
	}
	if _, err := r.out.Discard(1); err != nil {
		return nil, false, err
	}
	return data, f[1] == "blob" && data != nil, nil
}

func (r *blobReader) close() {
	if r.store != nil {
		r.store.close()
	}
	if r.cmd == nil {
		return
	}
	r.in.Close()
	_ = r.cmd.Wait()
}

// filesFromDiff turns diff entries into scanner files, reading contents.
func filesFromDiff(ctx context.Context, g gitCmd, es []rawEntry) ([]*File, error) {
	if len(es) == 0 {
		return nil, nil
	}
	br, err := newBlobReader(ctx, g)
	if err != nil {
		return nil, err
	}
	defer br.close()
	return br.files(es)
}

// files is filesFromDiff on an open reader. Every object name is written
// ahead of reading (a goroutine feeds git while its answers are read), so
// git streams instead of waiting for one round trip per blob.
func (r *blobReader) files(es []rawEntry) (_ []*File, err error) {
	if files, ok := r.filesGo(es); ok {
		return files, nil
	}
	if err := r.ensure(); err != nil {
		return nil, err
	}
	var want []string
	for _, e := range es {
		if e.oldMode != 0 && e.oldMode != ModeGitlink && e.oldOID != zeroOID {
			want = append(want, e.oldOID)
		}
		if e.newMode != 0 && e.newMode != ModeGitlink && e.newOID != zeroOID {
			want = append(want, e.newOID)
		}
	}
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		w := bufio.NewWriterSize(r.in, 64<<10)
		for _, oid := range want {
			if _, err := w.WriteString(oid + "\n"); err != nil {
				return
			}
		}
		w.Flush()
	}()
	defer func() {
		if err != nil {
			// git may be blocked writing what is no longer read, and the
			// feeder writing to git: stop it so both end.
			_ = r.cmd.Process.Kill()
		}
		<-fed
	}()
	files := make([]*File, 0, len(es))
	budget := int64(maxScanTotal) // content held in memory for one scan
	limit := func() int64 {
		if budget <= 0 {
			return 0
		}
		return min(maxScanBytes, budget)
	}
	for _, e := range es {
		f := &File{Path: e.path, OldMode: e.oldMode, NewMode: e.newMode, Size: -1}
		if e.oldMode != 0 && e.oldMode != ModeGitlink && e.oldOID != zeroOID {
			if f.Old, _, err = r.answer(limit()); err != nil {
				return nil, fmt.Errorf("read %s: %w", e.path, err)
			}
			budget -= int64(len(f.Old))
		}
		if e.newMode != 0 && e.newMode != ModeGitlink && e.newOID != zeroOID {
			if f.New, f.Size, err = r.answer(limit()); err != nil {
				return nil, fmt.Errorf("read %s: %w", e.path, err)
			}
			budget -= int64(len(f.New))
			f.Truncated = f.New == nil && f.Size > 0
		}
		files = append(files, f)
	}
	return files, nil
}

// isOID reports whether s is a full hex object name.
func isOID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
