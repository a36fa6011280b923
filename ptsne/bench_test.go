package ptsne

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/shared/sharedtest"
)

// BenchmarkEpochMNIST5000: one epoch (5 batches of 1,000) of the paper's 784–500–500–2000–2
// network on the first 5,000 MNIST training rows.
func BenchmarkEpochMNIST5000(b *testing.B) {
	d, err := dataset.Load(filepath.Join(sharedtest.Data(b), "mnist", "train-images-idx3-ubyte.gz"), dataset.Options{})
	if err != nil {
		b.Skip(err)
	}
	idx := make([]int, 5000)
	for i := range idx {
		idx[i] = i
	}
	d = d.Subset(idx)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Embedder{Epochs: 1}).Fit(context.Background(), d); err != nil {
			b.Fatal(err)
		}
	}
}
