package posterior

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkObjective times one objective and gradient evaluation at Letter-like size:
// n = 1,200 training rows (1,500 less the held-out fifth), H = 16, K = 26, G = 4·26.
func BenchmarkObjective(b *testing.B) {
	d := blobs(1200, 16, 26, 8, 1)
	td, err := DiscriminativeMixture{}.prepare(d)
	if err != nil {
		b.Fatal(err)
	}
	g := 104
	c, cl := initCenters(td, g, rand.New(rand.NewPCG(1, 1)))
	o := newObjective(td.x, td.labels, td.h, td.k, g, 3)
	theta := make([]float64, o.dim())
	copy(theta, c)
	for j, k := range cl {
		theta[g*td.h+k*g+j] = 2
	}
	grad := make([]float64, len(theta))
	b.ReportAllocs()
	for b.Loop() {
		o.valid = false
		o.Grad(grad, theta)
	}
}
