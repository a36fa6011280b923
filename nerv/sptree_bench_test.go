package nerv

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkTreeBuild times the quadtree build on n points of a 20-cluster layout in the plane
// (clusters as a t-SNE map draws them), at the sizes of MNIST and of the 10⁶-row target.
func BenchmarkTreeBuild(b *testing.B) {
	for _, n := range []int{70000, 1000000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			y := make([]float64, 2*n)
			for i := range n {
				c := float64(rng.IntN(20))
				y[2*i] = 30*float64(int(c)%5) + 3*rng.NormFloat64()
				y[2*i+1] = 30*float64(int(c)/5) + 3*rng.NormFloat64()
			}
			t := newSPTree(2, n, DefaultTheta)
			for b.Loop() {
				t.build(y)
			}
		})
	}
}
