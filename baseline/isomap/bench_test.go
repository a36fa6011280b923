package isomap

import (
	"context"
	"testing"

	"github.com/lowdim/lowdim/baseline/internal/golden"
)

// BenchmarkN5000 is the speed check: Isomap (k = 10) of a 5,000-point S-curve;
// baseline/testdata/bench_sklearn_manifold.py times scikit-learn on the same distribution. Measured
// interleaved, medians of 3, load average 18–36: 18.1 s against scikit-learn's 51.2 s (0.35).
func BenchmarkN5000(b *testing.B) {
	d := golden.SCurve(5000, 0.05, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Isomap{Neighbors: 10}).Fit(context.Background(), d); err != nil {
			b.Fatal(err)
		}
	}
}
