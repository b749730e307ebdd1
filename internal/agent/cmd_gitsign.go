package agent

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// `airlock-agent gitsign` is git's gpg.ssh.program inside a sandbox. It
// speaks ssh-keygen's argv for `-Y sign -n git -f KEYFILE [-U] FILE`, asks
// the host signer over /run/airlock/signer.sock (airlock_gitSign) and writes
// FILE.sig. The private key never enters the sandbox: KEYFILE holds only the
// public key git was configured with. The host signs commit and tag objects
// only and decides by policy. Other -Y modes (verify, find-principals,
// check-novalidate) are handed to the real ssh-keygen.

// DefaultSignerSocket is where the bridge opens the signer inside a sandbox.
const DefaultSignerSocket = "/run/airlock/signer.sock"

// DefaultSignerTCP is the same endpoint on loopback TCP.
const DefaultSignerTCP = "127.0.0.1:8550"

// unreachableError means the endpoint could not be connected to.
type unreachableError struct{ err error }

func (u *unreachableError) Error() string { return u.err.Error() }

func init() {
	Register(&Subcommand{Name: "gitsign", Summary: "git gpg.ssh.program: signs commits and tags via the host signer", Run: runGitSign})
}

func runGitSign(args []string) int {
	var mode, namespace, keyFile string
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch a {
		case "-Y":
			mode = next()
		case "-n":
			namespace = next()
		case "-f":
			keyFile = next()
		case "-O", "-I", "-s":
			next()
		case "-U":
		default:
			files = append(files, a)
		}
	}
	if mode != "sign" {
		return execSSHKeygen(args)
	}
	if namespace != "git" || keyFile == "" || len(files) != 1 {
		fmt.Fprintln(os.Stderr, "airlock-agent gitsign: usage: -Y sign -n git -f KEYFILE [-U] FILE")
		return 2
	}
	sig, err := gitSign(keyFile, files[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "airlock-agent gitsign: %v\n", err)
		return 1
	}
	if err := os.WriteFile(files[0]+".sig", []byte(sig), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "airlock-agent gitsign: write signature: %v\n", err)
		return 1
	}
	return 0
}

func execSSHKeygen(args []string) int {
	path, err := exec.LookPath("ssh-keygen")
	if err != nil {
		fmt.Fprintln(os.Stderr, "airlock-agent gitsign: ssh-keygen not found for", strings.Join(args, " "))
		return 1
	}
	if err := syscall.Exec(path, append([]string{"ssh-keygen"}, args...), os.Environ()); err != nil {
		fmt.Fprintf(os.Stderr, "airlock-agent gitsign: exec ssh-keygen: %v\n", err)
	}
	return 1
}

func gitSign(keyFile, file string) (string, error) {
	pub, err := os.ReadFile(keyFile)
	if err != nil {
		return "", fmt.Errorf("read key file: %w", err)
	}
	line := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(pub)), "key::"))
	if strings.Contains(line, "PRIVATE KEY") {
		return "", errors.New("user.signingkey must be the public key (the private key lives on the host)")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("read object: %w", err)
	}
	sock := os.Getenv("AIRLOCK_SIGNER_SOCK")
	if sock == "" {
		sock = DefaultSignerSocket
	}
	var res struct {
		Signature string `json:"signature"`
	}
	params := map[string]string{"namespace": "git", "public_key": line, "data": base64.StdEncoding.EncodeToString(data)}
	err = signerCall("unix", sock, "airlock_gitSign", params, &res)
	var ue *unreachableError
	if errors.As(err, &ue) {
		// The same endpoint on loopback TCP (both are opened by the bridge).
		err = signerCall("tcp", DefaultSignerTCP, "airlock_gitSign", params, &res)
	}
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(res.Signature, "-----BEGIN SSH SIGNATURE-----") {
		return "", errors.New("signer returned no SSH signature")
	}
	return res.Signature, nil
}

// signerCall makes one JSON-RPC 2.0 call over HTTP on network/addr.
func signerCall(network, addr, method string, params, result any) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": []any{params}})
	client := &http.Client{
		// Long enough for a human to answer an approval prompt.
		Timeout: 5 * time.Minute,
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, &unreachableError{err}
			}
			return c, nil
		}},
	}
	resp, err := client.Post("http://signer/", "application/json", bytes.NewReader(body))
	if err != nil {
		var ue *unreachableError
		if errors.As(err, &ue) {
			return ue
		}
		return fmt.Errorf("signer at %s: %w", addr, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("read signer reply: %w", err)
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("signer reply is not JSON-RPC (HTTP %d)", resp.StatusCode)
	}
	if r.Error != nil {
		return fmt.Errorf("signer refused: %s", r.Error.Message)
	}
	return json.Unmarshal(r.Result, result)
}
