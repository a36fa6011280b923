//go:build unix

package neighbors

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system) the process has used so far: on the shared
// machine the benchmarks report it beside the wall time, which other jobs inflate.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
