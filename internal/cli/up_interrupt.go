package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/airlock-sandbox/airlock/bridge"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

// Ctrl-C during `up` is honest: the CLI closes its connection, which
// cancels the request on the bridge (a failed create leaves nothing
// behind), says so, and waits to tell what became of the sandbox: gone, or
// up already (past the point of no return) and how to remove it. A second
// Ctrl-C stops waiting.

// upWait bounds how long a cancelled up waits for the bridge's cleanup.
const upWait = 2 * time.Minute

func upInterruptible(e *Env, c *bridge.Client, p protocol.UpParams, res *protocol.UpResult) error {
	// The sandboxes there before this up, on this connection: a cancel
	// then tells which one it was about and whether it existed already.
	var before protocol.ListResult
	c.Call(context.Background(), protocol.MethodList, struct{}{}, &before)
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	done := make(chan error, 1)
	go func() { done <- c.Call(context.Background(), protocol.MethodUp, p, res) }()
	select {
	case err := <-done:
		return rpcErr(err)
	case <-sig:
	}
	c.Close() // cancels the request on the bridge
	name, existed := upTarget(e, p, before.Sandboxes)
	if name == "" {
		fmt.Fprintln(e.Stderr, "\nairlock: cancelled; `airlock ls` shows whether a sandbox was left (`airlock rm --force NAME` removes it)")
		return &ExitError{Code: 130}
	}
	if existed {
		fmt.Fprintf(e.Stderr, "\nairlock: cancelled; sandbox %s existed before this up and stays (`airlock ls` shows its state)\n", name)
		return &ExitError{Code: 130}
	}
	fmt.Fprintf(e.Stderr, "\nairlock: cancelling: the bridge stops bringing %s up and removes what it made (Ctrl-C again to stop waiting)\n", name)
	<-done
	deadline := time.Now().Add(upWait)
	for {
		sb, err := findSandbox(e, name)
		switch {
		case err != nil && strings.Contains(err.Error(), "no sandbox named"):
			fmt.Fprintf(e.Stderr, "airlock: cancelled; nothing of %s is left\n", name)
			return &ExitError{Code: 130}
		case err == nil && sb.State != protocol.StateStarting:
			fmt.Fprintf(e.Stderr, "airlock: %s came up before the cancel reached the bridge and keeps running (%s); `airlock rm --force %s` removes it\n", name, sb.State, name)
			return &ExitError{Code: 130}
		case time.Now().After(deadline):
			fmt.Fprintf(e.Stderr, "airlock: %s is still being cleaned up; `airlock ls` shows it, `airlock rm --force %s` removes what is left\n", name, name)
			return &ExitError{Code: 130}
		}
		select {
		case <-sig:
			fmt.Fprintf(e.Stderr, "airlock: not waiting; `airlock ls` shows whether %s is left, `airlock rm --force %s` removes it\n", name, name)
			return &ExitError{Code: 130}
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// upTarget is the sandbox a cancelled up was about and whether it existed
// before, from the bridge's records, not the file (which may have changed
// since, even into a link to /dev/zero: outside round startpath/05):
// --name, else one the bridge is bringing up from this file now, else the
// one this file brought up before. "" when that does not say.
func upTarget(e *Env, p protocol.UpParams, before []protocol.Sandbox) (name string, existed bool) {
	var now protocol.ListResult
	if p.Name == "" {
		call(e, protocol.MethodList, struct{}{}, &now)
	}
	return pickTarget(p, before, now.Sandboxes)
}

// pickTarget is upTarget from the lists before the up and after the
// cancel.
func pickTarget(p protocol.UpParams, before, now []protocol.Sandbox) (name string, existed bool) {
	had := map[string]bool{}
	var fromFile []string
	for _, sb := range before {
		had[sb.Name] = true
		if sb.ConfigPath == p.ConfigPath {
			fromFile = append(fromFile, sb.Name)
		}
	}
	if p.Name != "" {
		return p.Name, had[p.Name]
	}
	var made []string
	for _, sb := range now {
		if sb.ConfigPath == p.ConfigPath && !had[sb.Name] {
			made = append(made, sb.Name)
		}
	}
	if len(made) == 1 {
		return made[0], false
	}
	if len(fromFile) == 1 && len(made) == 0 {
		return fromFile[0], true
	}
	return "", false
}
