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

// clusteredLayout is n points in 20 Gaussian clusters on a 5×4 grid, as a t-SNE map draws them.
func clusteredLayout(n int) []float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	y := make([]float64, 2*n)
	for i := range n {
		c := rng.IntN(20)
		y[2*i] = 30*float64(c%5) + 3*rng.NormFloat64()
		y[2*i+1] = 30*float64(c/5) + 3*rng.NormFloat64()
	}
	return y
}

// BenchmarkTreeWalk times t-SNE's far-field sums (the Barnes–Hut walk, θ = 0.5) for every point
// of a clustered layout, queries in tree order on one goroutine: the part of an evaluation that
// grows with log n and with the tree outgrowing the caches. cells=wide walks spNode, the
// layout before the compact wnode.
func BenchmarkTreeWalk(b *testing.B) {
	for _, n := range []int{10000, 100000, 1000000} {
		y := clusteredLayout(n)
		t := newSPTree(2, n, DefaultTheta)
		t.build(y)
		walk := t.walk
		for _, cells := range []string{"compact", "wide"} {
			b.Run(fmt.Sprintf("n=%d/cells=%s", n, cells), func(b *testing.B) {
				t.walk = walk
				if cells == "wide" {
					t.walk = nil
				}
				var stack []int32
				var s tSums
				for b.Loop() {
					for m := range n {
						stack = t.studentQuery(t.pts[2*m:2*m+2], int32(m), false, stack, &s)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/query")
			})
		}
	}
}
