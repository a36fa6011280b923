//go:build !unix

package dataset

// cpuTime is not measured here: the benchmark's cpu-ns/row reads 0.
func cpuTime() int64 { return 0 }
