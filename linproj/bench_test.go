package linproj

import (
	"context"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/shared/sharedtest"
)

func benchFit(b *testing.B, x *mat.Dense, dim int) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fitPCA(context.Background(), x, dim, nil, routeAuto); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPCADigits: 1797×64, D = 2 (scatter-matrix route).
func BenchmarkPCADigits(b *testing.B) { benchFit(b, dataset.Digits().X, 2) }

// BenchmarkPCA20kx784: synthetic data of MNIST's width.
func BenchmarkPCA20kx784(b *testing.B) { benchFit(b, randomData(20000, 784, 1), 2) }

// BenchmarkPCASVD1000x784: a wide-ish shape (n < 2H) takes the thin-SVD route.
func BenchmarkPCASVD1000x784(b *testing.B) { benchFit(b, randomData(1000, 784, 1), 2) }

// BenchmarkPCAMNIST: all 70000 MNIST images (train + test), 784 pixels.
func BenchmarkPCAMNIST(b *testing.B) {
	dir := filepath.Join(sharedtest.Dir(b), "data", "mnist")
	train, err := dataset.Load(filepath.Join(dir, "train-images-idx3-ubyte.gz"), dataset.Options{})
	if err != nil {
		b.Fatal(err)
	}
	test, err := dataset.Load(filepath.Join(dir, "t10k-images-idx3-ubyte.gz"), dataset.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var x mat.Dense
	x.Stack(train.X, test.X)
	train, test = nil, nil
	benchFit(b, &x, 2)
}

// BenchmarkPCATransform: 20000 rows of 784 into 2-D.
func BenchmarkPCATransform(b *testing.B) {
	x := randomData(20000, 784, 1)
	m, err := fitPCA(context.Background(), x, 2, nil, routeAuto)
	if err != nil {
		b.Fatal(err)
	}
	dst := mat.NewDense(20000, 2, nil)
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Transform(dst, x); err != nil {
			b.Fatal(err)
		}
	}
}
