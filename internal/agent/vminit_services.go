package agent

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
)

// A service is a long-running child of the microVM's init: the embedded
// sshd always, the private Docker engine when the spec asks for one. A
// service that dies is started again after a delay that doubles with each
// quick death (up to 30 s), so a crashing daemon cannot spin the guest.
type service struct {
	name  string
	cmd   func() (*exec.Cmd, error)
	grace time.Duration // how long stop waits after SIGTERM

	pid     int
	started time.Time
	delay   time.Duration
}

// vmServices is what init supervises for spec.
func vmServices(spec *guestspec.VMInit) []*service {
	svcs := []*service{{name: "sshd", grace: 300 * time.Millisecond, cmd: func() (*exec.Cmd, error) {
		cmd := exec.Command(guestspec.VMAgentPath, "vmsshd")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		return cmd, nil
	}}}
	if spec.Docker {
		svcs = append(svcs, &service{name: "dockerd", grace: 10 * time.Second, cmd: func() (*exec.Cmd, error) { return dockerdCommand(spec) }})
	}
	return svcs
}

// dockerdLog is where the private engine's daemon writes (inside the guest).
const dockerdLog = "/var/log/airlock-dockerd.log"

// dockerdCommand is the sandbox's own Docker engine: the image's dockerd
// with its socket at /run/docker.sock for the docker group (the agent
// user is in it), its data on the sandbox's root disk, and registry pulls
// through the sandbox's egress proxy (trusting the sandbox CA).
func dockerdCommand(spec *guestspec.VMInit) (*exec.Cmd, error) {
	const bin = "/usr/sbin/dockerd"
	if _, err := os.Stat(bin); err != nil {
		return nil, errors.New("this image has no Docker engine (" + bin + ")")
	}
	logf, err := os.OpenFile(dockerdLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o640)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--host=unix:///run/docker.sock", "--group=docker")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	for _, kv := range spec.Env {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy", "SSL_CERT_FILE":
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd, nil
}

// vmSupervise runs the services as children (restarting those that die),
// reaps orphans and waits for the host's power-off request, on which the
// services stop in reverse order, each within its grace, before every
// other process is ended.
func vmSupervise(log func(string, ...any), spec *guestspec.VMInit) {
	var mu sync.Mutex
	svcs := vmServices(spec)
	stopping := false
	var start func(s *service)
	start = func(s *service) {
		cmd, err := s.cmd()
		if err == nil {
			cmd.SysProcAttr = &unix.SysProcAttr{Setsid: true}
			err = cmd.Start()
		}
		if err != nil {
			log("start %s: %v", s.name, err)
			return
		}
		s.pid, s.started = cmd.Process.Pid, time.Now()
	}
	mu.Lock()
	for _, s := range svcs {
		start(s)
	}
	mu.Unlock()
	if spec.Control != "" {
		go vmControl(log, spec, func() {
			mu.Lock()
			stopping = true
			pids := make([]int, len(svcs))
			for i, s := range svcs {
				pids[i] = s.pid
			}
			mu.Unlock()
			for i := len(svcs) - 1; i >= 0; i-- {
				stopService(pids[i], svcs[i].grace)
			}
			vmPowerOff(log, spec)
		})
	}
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.ECHILD {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			continue
		}
		mu.Lock()
		for _, s := range svcs {
			if s.pid != pid || pid == 0 {
				continue
			}
			s.pid = 0
			if stopping {
				break
			}
			s.delay = restartDelay(s.delay, time.Since(s.started))
			log("%s exited (%v); restarting in %v", s.name, ws, s.delay)
			time.AfterFunc(s.delay, func() {
				mu.Lock()
				defer mu.Unlock()
				if !stopping && s.pid == 0 {
					start(s)
				}
			})
		}
		mu.Unlock()
	}
}

// restartDelay: 500 ms after a service that ran a minute or more, else
// double the last delay, at most 30 s.
func restartDelay(last, ran time.Duration) time.Duration {
	if ran >= time.Minute || last == 0 {
		return 500 * time.Millisecond
	}
	return min(2*last, 30*time.Second)
}

// stopService sends SIGTERM to a service's pid and waits up to grace for
// it to be gone (the supervisor reaps it).
func stopService(pid int, grace time.Duration) {
	if pid <= 0 {
		return
	}
	unix.Kill(pid, unix.SIGTERM)
	for t0 := time.Now(); time.Since(t0) < grace; time.Sleep(50 * time.Millisecond) {
		if unix.Kill(pid, 0) == unix.ESRCH {
			return
		}
	}
}
