package lle

import (
	"context"
	"testing"

	"lowdim/baseline/internal/golden"
)

// BenchmarkN5000: each variant on a 5,000-point S-curve (k as in bench_sklearn.py: 10, 12
// for Hessian), against scikit-learn's LocallyLinearEmbedding with its default ARPACK solver.
func BenchmarkN5000(b *testing.B) {
	d := golden.SCurve(5000, 0.05, 1)
	for _, c := range []struct {
		v Variant
		k int
	}{{Standard, 10}, {Hessian, 12}, {LTSA, 10}} {
		b.Run(c.v.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (LLE{Neighbors: c.k, Variant: c.v}).Fit(context.Background(), d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
