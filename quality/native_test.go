package quality

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// outRow's 2-D rows (in C under -tags openblas) are bit for bit the plain Go expression
// (y_j − y_i)·(y_j − y_i) summed over the two coordinates, for lengths around the 8-point step.
func TestOutRow2DBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 7, 8, 9, 17, 1001} {
		y := mat.NewDense(n, 2, nil)
		for j := range n {
			y.Set(j, 0, rng.NormFloat64()*1e3)
			y.Set(j, 1, rng.NormFloat64()*1e-3)
		}
		row := make([]float64, n)
		for _, i := range []int{0, n / 2, n - 1} {
			outRow(y, i, row)
			for j := range n {
				t0, t1 := y.At(j, 0)-y.At(i, 0), y.At(j, 1)-y.At(i, 1)
				if want := t0*t0 + t1*t1; math.Float64bits(row[j]) != math.Float64bits(want) {
					t.Fatalf("n=%d i=%d j=%d: %v, want %v", n, i, j, row[j], want)
				}
			}
		}
	}
}
