package quality

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

func runBench(b *testing.B, n int, fn func(ctx context.Context) error) {
	b.ReportAllocs()
	for b.Loop() {
		if err := fn(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// benchAll times every measure on 50-dimensional Gaussian data (the BLAS path) and a random 2-D
// embedding.
func benchAll(b *testing.B, n int) {
	x, y := randMat(n, 50, 1), randMat(n, 2, 2)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % 10
	}
	opt := Options{}
	b.Run("Trustworthiness", func(b *testing.B) {
		runBench(b, n, func(ctx context.Context) error { _, err := Trustworthiness(ctx, x, y, opt); return err })
	})
	b.Run("Continuity", func(b *testing.B) {
		runBench(b, n, func(ctx context.Context) error { _, err := Continuity(ctx, x, y, opt); return err })
	})
	b.Run("Smoothed", func(b *testing.B) {
		runBench(b, n, func(ctx context.Context) error { _, _, err := Smoothed(ctx, x, y, opt); return err })
	})
	b.Run("RankBased", func(b *testing.B) {
		runBench(b, n, func(ctx context.Context) error { _, _, err := RankBased(ctx, x, y, opt); return err })
	})
	b.Run("PRCurves", func(b *testing.B) {
		runBench(b, n, func(ctx context.Context) error { _, _, err := PRCurves(ctx, x, y, opt); return err })
	})
	b.Run("KNNError", func(b *testing.B) {
		runBench(b, n, func(ctx context.Context) error { _, err := KNNError(ctx, y, labels, opt); return err })
	})
	b.Run("Evaluate", func(b *testing.B) {
		runBench(b, n, func(ctx context.Context) error { _, err := Evaluate(ctx, x, y, labels, opt); return err })
	})
}

func BenchmarkN1000(b *testing.B)  { benchAll(b, 1000) }
func BenchmarkN10000(b *testing.B) { benchAll(b, 10000) }

// BenchmarkBucketSort orders rows of 70,000 squared distances shaped like MNIST's (sums of 50
// squared Gaussians: concentrated) and like a 2-D embedding's (squared norms of 2-D Gaussians).
func BenchmarkBucketSort(b *testing.B) {
	const n = 70000
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := map[string][]float64{"concentrated": make([]float64, n), "2-D": make([]float64, n)}
	for j := 0; j < n; j++ {
		var s float64
		for range 50 {
			v := rng.NormFloat64()
			s += v * v
		}
		shapes["concentrated"][j] = s
		u, v := rng.NormFloat64(), rng.NormFloat64()
		shapes["2-D"][j] = u*u + v*v
	}
	for name, d := range shapes {
		b.Run(name, func(b *testing.B) {
			d[17] = 0
			s := newRowOrder(n)
			lo, hi := math.Inf(1), math.Inf(-1)
			for j, v := range d {
				if j != 17 {
					lo, hi = min(lo, v), max(hi, v)
				}
			}
			for b.Loop() {
				s.order(d, 17, lo, hi, n*68/100) // the rank-based measures order the nearest 68%
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
		})
	}
}
