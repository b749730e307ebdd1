// atk: tiny static multitool for FROM-scratch containers in the airlock guest.
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

func tcp(addr, payload string) {
	c, err := net.DialTimeout("tcp", addr, 4*time.Second)
	if err != nil {
		fmt.Printf("TCP %s ERR %v\n", addr, err)
		return
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprint(c, strings.ReplaceAll(payload, `\n`, "\r\n"))
	r := bufio.NewReader(c)
	line, _ := r.ReadString('\n')
	fmt.Printf("TCP %s OK %q\n", addr, line)
}

func dns(addr string) {
	c, err := net.DialTimeout("udp", addr, 3*time.Second)
	if err != nil {
		fmt.Printf("UDP %s ERR %v\n", addr, err)
		return
	}
	q := []byte{0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 9, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't', 0, 0, 1, 0, 1}
	c.Write(q)
	c.SetDeadline(time.Now().Add(3 * time.Second))
	b := make([]byte, 512)
	n, err := c.Read(b)
	if err != nil {
		fmt.Printf("UDP %s NOANSWER %v\n", addr, err)
		return
	}
	fmt.Printf("UDP %s ANSWER %d bytes\n", addr, n)
}

func main() {
	a := os.Args[1:]
	if a[0] == "multi" {
		for _, cmd := range strings.Split(strings.Join(a[1:], " "), ";") {
			f := strings.Fields(cmd)
			if len(f) > 0 {
				run(f)
			}
		}
		return
	}
	run(a)
}

func run(a []string) {
	switch a[0] {
	case "tcp":
		p := ""
		if len(a) > 2 {
			p = a[2]
		}
		tcp(a[1], p)
	case "dns":
		dns(a[1])
	case "write":
		err := os.WriteFile(a[1], []byte(a[2]+"\n"), 0755)
		fmt.Printf("WRITE %s %v\n", a[1], err)
	case "mkdir":
		fmt.Printf("MKDIR %s %v\n", a[1], os.MkdirAll(a[1], 0755))
	case "mknod":
		err := syscall.Mknod(a[1], syscall.S_IFCHR|0666, int((1<<8)|3))
		fmt.Printf("MKNOD %s %v\n", a[1], err)
	case "mkfifo":
		err := syscall.Mknod(a[1], syscall.S_IFIFO|0666, 0)
		fmt.Printf("MKFIFO %s %v\n", a[1], err)
	case "chmod":
		var m uint32
		fmt.Sscanf(a[2], "%o", &m)
		fmt.Printf("CHMOD %s %v\n", a[1], syscall.Chmod(a[1], m))
	case "chown":
		var u, g int
		fmt.Sscanf(a[2], "%d", &u)
		fmt.Sscanf(a[3], "%d", &g)
		fmt.Printf("CHOWN %s %v\n", a[1], os.Lchown(a[1], u, g))
	case "symlink":
		fmt.Printf("SYMLINK %s->%s %v\n", a[2], a[1], os.Symlink(a[1], a[2]))
	case "link":
		fmt.Printf("LINK %s->%s %v\n", a[2], a[1], os.Link(a[1], a[2]))
	case "rename":
		fmt.Printf("RENAME %s->%s %v\n", a[1], a[2], os.Rename(a[1], a[2]))
	case "cat":
		b, err := os.ReadFile(a[1])
		fmt.Printf("CAT %s %q %v\n", a[1], string(b), err)
	case "ls":
		es, err := os.ReadDir(a[1])
		names := []string{}
		for _, e := range es {
			names = append(names, e.Name())
		}
		fmt.Printf("LS %s %v %v\n", a[1], names, err)
	case "setxattr":
		fmt.Printf("SETXATTR %s %v\n", a[1], syscall.Setxattr(a[1], "user.x", []byte("1"), 0))
	case "listen":
		// listen ADDR LOGFILE: log every connection and its first line
		l, err := net.Listen("tcp", a[1])
		if err != nil {
			fmt.Println("LISTEN ERR", err)
			os.Exit(1)
		}
		for {
			c, err := l.Accept()
			if err != nil {
				continue
			}
			go func(c net.Conn) {
				defer c.Close()
				c.SetDeadline(time.Now().Add(3 * time.Second))
				line, _ := bufio.NewReader(c).ReadString('\n')
				f, _ := os.OpenFile(a[2], os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0644)
				fmt.Fprintf(f, "CONN from %s %q\n", c.RemoteAddr(), line)
				f.Close()
				fmt.Fprint(c, "HTTP/1.0 200 OK\r\n\r\nHOSTSECRET\n")
			}(c)
		}
	case "mount9p":
		os.MkdirAll(a[2], 0755)
		err := syscall.Mount(a[1], a[2], "9p", 0, "trans=virtio,version=9p2000.L,msize=262144")
		fmt.Printf("MOUNT9P %s %s %v\n", a[1], a[2], err)
		if err == nil && len(a) > 3 {
			// then run the rest as a sub-command list separated by ";"
			for _, cmd := range strings.Split(strings.Join(a[3:], " "), ";") {
				f := strings.Fields(cmd)
				if len(f) == 0 {
					continue
				}
				run(f)
			}
		}
	case "tick":
		for i := 0; ; i++ {
			os.WriteFile(a[1], []byte(fmt.Sprintf("%d %s\n", i, time.Now().Format(time.RFC3339Nano))), 0644)
			time.Sleep(500 * time.Millisecond)
		}
	case "spam":
		// spam DEV BYTES: write junk (JSON-ish lines and binary) to a device
		f, err := os.OpenFile(a[1], os.O_RDWR, 0)
		if err != nil {
			fmt.Printf("SPAM %s open %v\n", a[1], err)
			return
		}
		var n int
		fmt.Sscanf(a[2], "%d", &n)
		junk := []byte("{\"type\":\"ready\",\"id\":1,\"cmd\":\"sync\",\"ok\":true}\n\x00\xff{{{{\"" + strings.Repeat("A", 4000) + "\n")
		w := 0
		for w < n {
			m, err := f.Write(junk)
			if err != nil {
				fmt.Printf("SPAM write err after %d: %v\n", w, err)
				break
			}
			w += m
		}
		fmt.Printf("SPAM %s wrote %d\n", a[1], w)
		if len(a) > 3 {
			time.Sleep(time.Hour) // keep holding the port
		}
	case "sleep":
		time.Sleep(time.Hour)
	default:
		fmt.Println("unknown", a[0])
	}
}
