package laplacian

import (
	"context"
	"testing"

	"github.com/lowdim/lowdim/baseline/internal/golden"
)

// BenchmarkN5000: the Laplacian eigenmap (k = 10) of a 5,000-point S-curve, against
// baseline/testdata/bench_sklearn_manifold.py's SpectralEmbedding. Measured interleaved, medians of 3,
// load average 18–36: 0.19 s against 4.2 s (0.05).
func BenchmarkN5000(b *testing.B) {
	d := golden.SCurve(5000, 0.05, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Eigenmap{Neighbors: 10}).Fit(context.Background(), d); err != nil {
			b.Fatal(err)
		}
	}
}
