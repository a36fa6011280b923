package viz

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// clusters returns n points in k Gaussian clusters whose centres lie on a circle of radius 10
// (unit spread), stretched by aspect along x, with their labels. Seeded: same arguments, same data.
func clusters(n, k int, aspect float64, seed uint64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	y := mat.NewDense(n, 2, nil)
	labels := make([]int, n)
	for i := range n {
		c := i % k
		a := 2 * math.Pi * float64(c) / float64(k)
		y.Set(i, 0, aspect*(10*math.Cos(a)+rng.NormFloat64()))
		y.Set(i, 1, 10*math.Sin(a)+rng.NormFloat64())
		labels[i] = c
	}
	return y, labels
}
