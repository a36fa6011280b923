package mcml

import (
	"context"
	"testing"

	"github.com/lowdim/lowdim/baseline/internal/testio"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
)

// BenchmarkFitMNIST5000PCA50: fit and embed the first 5,000 MNIST training rows reduced to their
// 50 principal components (MCML's cost per pair grows with H; the HOPE reproduction does the
// same), 20 projected-gradient steps.
func BenchmarkFitMNIST5000PCA50(b *testing.B) {
	d := testio.MNIST(b, 5000)
	p, err := linproj.PCA{Dim: 50}.Fit(context.Background(), d)
	if err != nil {
		b.Fatal(err)
	}
	r := &dataset.Set{X: p.Embedding(), Labels: d.Labels}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (MCML{MaxIter: 20}).Fit(context.Background(), r); err != nil {
			b.Fatal(err)
		}
	}
}
