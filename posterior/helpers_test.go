package posterior

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// blobs returns n labelled rows in h dimensions from k Gaussian classes (unit spread) whose
// means lie sep apart along random directions.
func blobs(n, h, k int, sep float64, seed uint64) *dataset.Set {
	rng := rand.New(rand.NewPCG(seed, 1))
	means := make([][]float64, k)
	for c := range means {
		means[c] = make([]float64, h)
		for j := range means[c] {
			means[c][j] = sep * rng.NormFloat64() / math.Sqrt(float64(h))
		}
	}
	x := mat.NewDense(n, h, nil)
	labels := make([]int, n)
	names := make([]string, k)
	for c := range names {
		names[c] = string(rune('a' + c))
	}
	for i := 0; i < n; i++ {
		c := i % k
		labels[i] = c
		for j := 0; j < h; j++ {
			x.Set(i, j, means[c][j]+rng.NormFloat64())
		}
	}
	return &dataset.Set{Name: "blobs", X: x, Labels: labels, ClassNames: names}
}

// randomMixture returns a mixture with g random centres in h dimensions, k classes, random
// logits of spread gs and width s.
func randomMixture(g, h, k int, gs, s float64, seed uint64) *Mixture {
	rng := rand.New(rand.NewPCG(seed, 2))
	c := mat.NewDense(g, h, nil)
	for i := 0; i < g; i++ {
		for j := 0; j < h; j++ {
			c.Set(i, j, 2*rng.NormFloat64())
		}
	}
	gm := mat.NewDense(k, g, nil)
	for i := 0; i < k; i++ {
		for j := 0; j < g; j++ {
			gm.Set(i, j, gs*rng.NormFloat64())
		}
	}
	return &Mixture{Centers: c, Gamma: gm, Width: s}
}
