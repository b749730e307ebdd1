package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/airlock-sandbox/airlock/bridge"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

func init() {
	Register(&Command{Name: "ssh", Usage: "ssh NAME [-- CMD...]", Summary: "open an SSH session in a sandbox with the system ssh", Run: runSSH})
	Register(&Command{Name: "ssh-proxy", Usage: "ssh-proxy [--no-start] NAME", Summary: "stdio to a sandbox's sshd (for ProxyCommand)", Run: runSSHProxy})
	Register(&Command{Name: "ssh-config", Usage: "ssh-config [--install]", Summary: "print (or install into ~/.ssh) Host NAME.airlock blocks", Run: runSSHConfig})
	Register(&Command{Name: "ports", Usage: "ports [--json] NAME", Summary: "list a sandbox's port forwards", Run: runPorts})
}

// nameAndCommand splits `NAME [--] CMD...`.
func nameAndCommand(args []string) (string, []string, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", nil, Usagef("want a sandbox name first")
	}
	name, rest := args[0], args[1:]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	return name, rest, nil
}

func runSSH(e *Env, args []string) error {
	name, argv, err := nameAndCommand(args)
	if err != nil {
		return err
	}
	name = strings.TrimSuffix(name, ".airlock")
	var h protocol.SSHHostResult
	if err := call(e, protocol.MethodSSHHost, protocol.NameParams{Name: name}, &h); err != nil {
		return err
	}
	sshBin, err := exec.LookPath("ssh")
	if err != nil {
		return errors.New("no ssh client in PATH (install openssh-client)")
	}
	full := append([]string{"ssh", "-F", h.ConfigFile, h.Host}, argv...)
	env := os.Environ()
	env = append(env, "AIRLOCK_HOME="+e.Home())
	return syscall.Exec(sshBin, full, env)
}

func runSSHProxy(e *Env, args []string) error {
	fs := newFlags("ssh-proxy", e)
	noStart := fs.Bool("no-start", false, "only use a running bridge, never start one (the bridge's own fetches: one cut short as it stops must not start a new bridge)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return Usagef("want exactly one sandbox name")
	}
	name := strings.TrimSuffix(fs.Arg(0), ".airlock")
	var h protocol.SSHHostResult
	if *noStart {
		c, err := bridge.Dial(context.Background(), e.Home())
		if err != nil {
			return fmt.Errorf("no bridge runs for %s", e.Home())
		}
		defer c.Close()
		if err := c.Call(context.Background(), protocol.MethodSSHHost, protocol.NameParams{Name: name}, &h); err != nil {
			return rpcErr(err)
		}
	} else if err := call(e, protocol.MethodSSHHost, protocol.NameParams{Name: name}, &h); err != nil {
		return err
	}
	conn, err := net.Dial("unix", h.Endpoint)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", h.Host, err)
	}
	defer conn.Close()
	done := make(chan struct{})
	go func() {
		io.Copy(e.Stdout, conn)
		close(done)
	}()
	go func() {
		io.Copy(conn, e.Stdin)
		conn.(*net.UnixConn).CloseWrite()
	}()
	<-done
	return nil
}

func runSSHConfig(e *Env, args []string) error {
	fs := newFlags("ssh-config", e)
	install := fs.Bool("install", false, "write ~/.ssh/config.d/airlock and Include it from ~/.ssh/config")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	// The bridge rewrites the file on every change and on start.
	c, err := connectBridge(e)
	if err != nil {
		return err
	}
	c.Close()
	if *install {
		uh := e.Getenv("HOME")
		if uh == "" {
			return errors.New("HOME is not set")
		}
		p, err := bridge.InstallSSHConfig(e.Home(), uh)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "wrote %s (included from %s)\n", p, filepath.Join(uh, ".ssh", "config"))
		// OpenSSH reads ~/.ssh of the passwd entry, not $HOME.
		if u, err := user.Current(); err == nil && u.HomeDir != "" && filepath.Clean(u.HomeDir) != filepath.Clean(uh) {
			fmt.Fprintf(e.Stderr, "note: ssh reads %s, the home of your passwd entry, not $HOME (%s): `ssh NAME.airlock` will not see this entry; use `airlock ssh NAME`, or ssh -F %s\n",
				filepath.Join(u.HomeDir, ".ssh", "config"), uh, p)
		}
		return nil
	}
	b, err := os.ReadFile(filepath.Join(e.Home(), "ssh", "config"))
	if err != nil {
		return err
	}
	_, err = e.Stdout.Write(b)
	return err
}

func runPorts(e *Env, args []string) error {
	fs := newFlags("ports", e)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return Usagef("want exactly one sandbox name")
	}
	var res protocol.PortsResult
	if err := call(e, protocol.MethodPorts, protocol.NameParams{Name: pos[0]}, &res); err != nil {
		return err
	}
	if *asJSON {
		if res.Ports == nil {
			res.Ports = []protocol.Port{}
		}
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res.Ports)
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tHOST\tGUEST\tLISTENING")
	for _, p := range res.Ports {
		fmt.Fprintf(tw, "%s\t%s:%d\t%d\t%v\n", p.Name, p.Bind, p.Host, p.Guest, p.Listening)
	}
	return tw.Flush()
}
