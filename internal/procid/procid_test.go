package procid

import (
	"os"
	"os/exec"
	"testing"
)

func TestStart(t *testing.T) {
	if Start(os.Getpid()) == 0 {
		t.Fatal("no start time for this process")
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	cmd.Wait()
	if Start(pid) != 0 || Start(0) != 0 || Start(-1) != 0 {
		t.Error("a start time for a process that is gone")
	}
}
