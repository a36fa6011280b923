package lmnn

import (
	"context"
	"testing"

	"github.com/lowdim/lowdim/baseline/internal/testio"
)

// BenchmarkFitMNIST5000: fit and embed the first 5,000 MNIST training rows (784 pixels).
func BenchmarkFitMNIST5000(b *testing.B) {
	d := testio.MNIST(b, 5000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (LMNN{}).Fit(context.Background(), d); err != nil {
			b.Fatal(err)
		}
	}
}
