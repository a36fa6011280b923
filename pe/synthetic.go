package pe

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/lowdim/lowdim/dataset"
)

// DirichletMixture draws n posterior rows over k classes for tests, benchmarks and the
// timing report: each object picks a class c uniformly and its row is drawn from
// Dirichlet(α) with α_c = 1 + concentration and every other α_l = 0.3, so rows are confident
// but never one-hot. It returns the n×K rows and each object's class.
func DirichletMixture(n, k int, concentration float64, seed uint64) (*mat.Dense, []int, error) {
	if n < 1 || k < 2 || !(concentration >= 0) {
		return nil, nil, dataset.Invalidf("pe: Dirichlet mixture needs n ≥ 1, k ≥ 2 and concentration ≥ 0, found n = %d, k = %d, %g", n, k, concentration)
	}
	src := rand.NewPCG(seed, 0xd1e2c3)
	rng := rand.New(src)
	hi := distuv.Gamma{Alpha: 1 + concentration, Beta: 1, Src: src}
	lo := distuv.Gamma{Alpha: 0.3, Beta: 1, Src: src}
	p := mat.NewDense(n, k, nil)
	labels := make([]int, n)
	raw := p.RawMatrix().Data
	for i := range n {
		c := rng.IntN(k)
		labels[i] = c
		row := raw[i*k : i*k+k]
		var s float64
		for l := range row {
			g := lo.Rand()
			if l == c {
				g = hi.Rand()
			}
			row[l] = g
			s += g
		}
		if !(s > 0) { // every draw underflowed: put the mass on the object's class
			row[c], s = 1, 1
		}
		for l := range row {
			row[l] /= s
		}
	}
	return p, labels, nil
}
