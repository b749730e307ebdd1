package microvm

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// trimELF shortens the file size of every PT_LOAD segment of a 64-bit
// little-endian ELF to its last non-zero byte; the memory size stays, so
// the loader zero-fills the rest. qemu keeps each loaded segment's file
// bytes in its own memory for the life of the VM (for a reset), and
// Debian's vmlinux stores its 17 MB .bss as zeros in the file: trimmed,
// every qemu's RSS is ~20 MB smaller. The file is patched in place (only
// program headers change) and stays a valid ELF.
func trimELF(path string) (saved int64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	ef, err := elf.NewFile(f)
	if err != nil {
		return 0, fmt.Errorf("trim %s: %w", path, err)
	}
	if ef.Class != elf.ELFCLASS64 || ef.Data != elf.ELFDATA2LSB {
		return 0, fmt.Errorf("trim %s: not a 64-bit little-endian ELF", path)
	}
	var hdr elf.Header64
	if err := binary.Read(io.NewSectionReader(f, 0, 64), binary.LittleEndian, &hdr); err != nil {
		return 0, fmt.Errorf("trim %s: %w", path, err)
	}
	if hdr.Phentsize < 56 || int(hdr.Phnum) != len(ef.Progs) {
		return 0, fmt.Errorf("trim %s: unexpected program header table", path)
	}
	for i, p := range ef.Progs {
		if p.Type != elf.PT_LOAD || p.Filesz == 0 {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil {
			return saved, fmt.Errorf("trim %s: segment %d: %w", path, i, err)
		}
		n := uint64(len(bytes.TrimRight(data, "\x00")))
		n = (n + 7) &^ 7 // keep 8-byte alignment of the data's end
		if n >= p.Filesz {
			continue
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], n)
		off := int64(hdr.Phoff) + int64(i)*int64(hdr.Phentsize) + 32 // p_filesz
		if _, err := f.WriteAt(b[:], off); err != nil {
			return saved, fmt.Errorf("trim %s: %w", path, err)
		}
		saved += int64(p.Filesz - n)
	}
	return saved, nil
}
