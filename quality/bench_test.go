package quality

import (
	"context"
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
