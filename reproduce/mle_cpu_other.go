//go:build !unix

package reproduce

import "time"

// cpuTime is unknown on this system.
func cpuTime() (time.Duration, bool) { return 0, false }
