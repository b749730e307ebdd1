package sshd

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// Terminal mode opcodes of RFC 4254 section 8 that Linux has.
var (
	ccModes = map[byte]int{
		1: unix.VINTR, 2: unix.VQUIT, 3: unix.VERASE, 4: unix.VKILL, 5: unix.VEOF,
		6: unix.VEOL, 7: unix.VEOL2, 8: unix.VSTART, 9: unix.VSTOP, 10: unix.VSUSP,
		12: unix.VREPRINT, 13: unix.VWERASE, 14: unix.VLNEXT, 18: unix.VDISCARD,
	}
	iflagModes = map[byte]uint32{
		30: unix.IGNPAR, 31: unix.PARMRK, 32: unix.INPCK, 33: unix.ISTRIP, 34: unix.INLCR,
		35: unix.IGNCR, 36: unix.ICRNL, 37: unix.IUCLC, 38: unix.IXON, 39: unix.IXANY,
		40: unix.IXOFF, 41: unix.IMAXBEL, 42: unix.IUTF8,
	}
	lflagModes = map[byte]uint32{
		50: unix.ISIG, 51: unix.ICANON, 52: unix.XCASE, 53: unix.ECHO, 54: unix.ECHOE,
		55: unix.ECHOK, 56: unix.ECHONL, 57: unix.NOFLSH, 58: unix.TOSTOP, 59: unix.IEXTEN,
		60: unix.ECHOCTL, 61: unix.ECHOKE, 62: unix.PENDIN,
	}
	oflagModes = map[byte]uint32{
		70: unix.OPOST, 71: unix.OLCUC, 72: unix.ONLCR, 73: unix.OCRNL, 74: unix.ONOCR, 75: unix.ONLRET,
	}
	cflagModes = map[byte]uint32{90: unix.CS7, 91: unix.CS8, 92: unix.PARENB, 93: unix.PARODD}
)

// applyModes sets the client's encoded terminal modes on the tty, as
// OpenSSH's sshd does. Opcodes 1-159 all carry a uint32, so unknown ones
// among them are skipped; TTY_OP_END (0) and 160 and above, whose argument
// size RFC 4254 leaves undefined, end parsing. Speeds are ignored.
func applyModes(fd int, modes []byte) error {
	if len(modes) == 0 {
		return nil
	}
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	parseModes(modes, t)
	return unix.IoctlSetTermios(fd, unix.TCSETS, t)
}

// parseModes applies encoded modes to t.
func parseModes(modes []byte, t *unix.Termios) {
	set := func(flags *uint32, bit uint32, on bool) {
		if on {
			*flags |= bit
		} else {
			*flags &^= bit
		}
	}
	for len(modes) >= 5 {
		op, v := modes[0], binary.BigEndian.Uint32(modes[1:5])
		if op == 0 || op >= 160 {
			break
		}
		modes = modes[5:]
		if i, ok := ccModes[op]; ok {
			t.Cc[i] = byte(v)
		} else if b, ok := iflagModes[op]; ok {
			set(&t.Iflag, b, v != 0)
		} else if b, ok := lflagModes[op]; ok {
			set(&t.Lflag, b, v != 0)
		} else if b, ok := oflagModes[op]; ok {
			set(&t.Oflag, b, v != 0)
		} else if b, ok := cflagModes[op]; ok {
			if b == unix.CS7 || b == unix.CS8 {
				if v != 0 {
					t.Cflag = t.Cflag&^unix.CSIZE | b
				}
			} else {
				set(&t.Cflag, b, v != 0)
			}
		}
	}
}
