// Package budgettest holds what the tests of the memory refusals share: a distance matrix of any
// size that takes no storage, and a measure of what a call allocates.
package budgettest

import (
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"
)

// LineMatrix is the n×n distance matrix |i − j| of n points on a line, without storage.
type LineMatrix int

// Dims returns n, n.
func (n LineMatrix) Dims() (int, int) { return int(n), int(n) }

// At returns |i − j|.
func (LineMatrix) At(i, j int) float64 { return math.Abs(float64(i - j)) }

// T returns the matrix itself (it is symmetric).
func (n LineMatrix) T() mat.Matrix { return n }

// Allocated is the bytes f allocates (all goroutines'; the tests that use it run one at a time).
func Allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}
