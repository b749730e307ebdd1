package agent

import (
	"fmt"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// vmNetwork brings up lo and eth0 with addr (CIDR) using ioctls: the guest
// needs no `ip` binary. No route is added: the only traffic is the host's
// forward from qemu's user network (10.0.2.2, same subnet) to the sshd.
func vmNetwork(addr string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := ifUp(fd, "lo"); err != nil {
		return err
	}
	if addr == "" {
		return nil
	}
	ip, ipnet, err := net.ParseCIDR(addr)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := net.InterfaceByName("eth0"); err == nil {
			break
		} else if time.Now().After(deadline) {
			return fmt.Errorf("eth0 did not appear")
		}
		time.Sleep(10 * time.Millisecond)
	}
	ifr, err := unix.NewIfreq("eth0")
	if err != nil {
		return err
	}
	if err := ifr.SetInet4Addr(ip.To4()); err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFADDR, ifr); err != nil {
		return fmt.Errorf("set address: %w", err)
	}
	ifr, _ = unix.NewIfreq("eth0")
	if err := ifr.SetInet4Addr(net.IP(ipnet.Mask).To4()); err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFNETMASK, ifr); err != nil {
		return fmt.Errorf("set netmask: %w", err)
	}
	return ifUp(fd, "eth0")
}

func ifUp(fd int, name string) error {
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("%s flags: %w", name, err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("%s up: %w", name, err)
	}
	return nil
}
