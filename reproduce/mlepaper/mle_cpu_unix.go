//go:build unix

package mlepaper

import (
	"syscall"
	"time"
)

// cpuTime returns the user plus system CPU time of the whole process so far.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
