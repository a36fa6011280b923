package testio

import (
	"path/filepath"
	"testing"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/shared/sharedtest"
)

// MNIST returns the first n rows of MNIST's training set from ../shared/data/mnist (the
// benchmarks' data, the same rows baseline/testdata/bench_sklearn.py times scikit-learn on),
// skipping the test when the file is absent.
func MNIST(t testing.TB, n int) *dataset.Set {
	t.Helper()
	d, err := dataset.Load(filepath.Join(sharedtest.Data(t), "mnist", "train-images-idx3-ubyte.gz"), dataset.Options{})
	if err != nil {
		t.Skipf("MNIST: %v", err)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return d.Subset(idx)
}
