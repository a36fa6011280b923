package mre

import (
	"context"
	"testing"

	"github.com/lowdim/lowdim/baseline/internal/testio"
)

// BenchmarkFitMNIST5000: fit and embed the first 5,000 MNIST training rows (784 pixels), the
// rows the other baselines' benchmarks use, with every setting at its default.
func BenchmarkFitMNIST5000(b *testing.B) {
	d := testio.MNIST(b, 5000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (MRE{}).Fit(context.Background(), d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCost5000 times one evaluation of E and its gradient at n = 5,000 (2-D), the unit of
// work L-BFGS repeats.
func BenchmarkCost5000(b *testing.B) {
	d := blobs(5000, 16, 26, 4, 1)
	labels, err := classLabels(d, 1)
	if err != nil {
		b.Fatal(err)
	}
	p := pairwiseSq(d.X)
	if err := featureNeighbourhoods(context.Background(), p, 2, 2); err != nil {
		b.Fatal(err)
	}
	o := newObjective(p, labels, 1, 2, 2)
	x := make([]float64, 5000*2+2)
	for i := range x {
		x[i] = float64(i%97) / 50
	}
	b.ReportAllocs()
	for b.Loop() {
		x[0] += 1e-9 // defeat the cache
		if _, err := o.cost(context.Background(), x); err != nil {
			b.Fatal(err)
		}
	}
}
