package microvm

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
)

// writeInitramfs writes the sandbox's initramfs (uncompressed newc cpio:
// unpacking is faster than decompressing under TCG): /init is the static
// airlock-agent, /lib/modules the kernel modules, /airlock/init.json the spec.
func writeInitramfs(path, agentBinary string, k *Kernel, spec *guestspec.VMInit) error {
	specJSON, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path+".tmp", os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	c := &cpioWriter{w: bw}
	for _, d := range []string{"dev", "proc", "sys", "lib", "lib/modules", "airlock", "newroot"} {
		c.Dir(d, 0o755)
	}
	c.CharDev("dev/console", 0o600, 5, 1)
	c.CharDev("dev/null", 0o666, 1, 3)
	c.HostFile("init", 0o755, agentBinary)
	for _, m := range spec.Modules { // only what the init loads
		c.HostFile("lib/modules/"+m, 0o644, filepath.Join(k.ModDir, m))
	}
	c.File(guestspec.VMInitPath[1:], 0o600, specJSON)
	err = c.Close()
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path + ".tmp")
		return err
	}
	return os.Rename(path+".tmp", path)
}
