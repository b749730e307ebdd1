package cli

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// startedAt is when this process was forked: the first moment anything
// on the machine (a sandbox's agent watching the host's fork counter
// among them) could see this command coming. Review dates its PUT-BACK
// window from it. Read from /proc/self/stat (clock ticks since boot, 10
// ms), against CLOCK_BOOTTIME; where that fails, now.
var startedAt = sync.OnceValue(func() time.Time {
	now := time.Now()
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return now
	}
	// Fields after the command name, which may hold spaces and ")".
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return now
	}
	ticks, err := strconv.ParseInt(f[19], 10, 64) // field 22, starttime
	var ts unix.Timespec
	if err != nil || unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return now
	}
	const userHZ = 100 // USER_HZ: what /proc counts in, on every Linux architecture Go runs
	age := time.Duration(ts.Nano()) - time.Duration(ticks)*time.Second/userHZ
	if age < 0 || age > time.Minute {
		return now
	}
	return now.Add(-age)
})
