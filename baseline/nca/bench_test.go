package nca

import (
	"context"
	"testing"

	"github.com/lowdim/lowdim/baseline/internal/testio"
)

// BenchmarkFitMNIST5000: fit and embed the first 5,000 MNIST training rows (784 pixels), the
// rows ../testdata/bench_sklearn.py times scikit-learn on.
func BenchmarkFitMNIST5000(b *testing.B) {
	d := testio.MNIST(b, 5000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (NCA{}).Fit(context.Background(), d); err != nil {
			b.Fatal(err)
		}
	}
}
