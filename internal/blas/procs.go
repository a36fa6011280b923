package blas

import (
	"os"
	"runtime"
)

// SpareProcs sets GOMAXPROCS to twice the number of CPUs when this build calls C kernels (Cgo)
// and the GOMAXPROCS environment variable does not choose, and returns the value in force.
//
// Why: a goroutine inside a C call holds no P, and once the call has lasted a scheduler tick
// (20 µs) the runtime hands its P on; with every P busy that means waking a spinning thread,
// which competes for the cores with the C calls themselves. The quality pass makes some 25 C
// calls of 20–300 µs per row on every worker, so with one P per core the handoffs cost a
// quarter of its time. Spare Ps absorb them. Measured on all of MNIST (quality.Evaluate, every
// measure, 2 workers on the 2-core machine, -tags openblas): 123 s with GOMAXPROCS 2, 106 s with
// 3, 92 s with 4, the voluntary context switches falling from 838,000 to 352,000. The workers
// of lowdim's own parallel loops still default to the number of CPUs.
func SpareProcs() int {
	if Cgo && os.Getenv("GOMAXPROCS") == "" {
		if n := 2 * runtime.NumCPU(); runtime.GOMAXPROCS(0) < n {
			runtime.GOMAXPROCS(n)
		}
	}
	return runtime.GOMAXPROCS(0)
}
