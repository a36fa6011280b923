package neighbors

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/blas"
)

// The MNIST benchmarks time the two passes package quality makes over all 70,000 images (717
// varying pixels, values 0..255): Rows (every pair) and MeanDistance (every unordered pair), on
// the int8 path (blas.I8NT, when blas.I8Native) against the single precision path it replaces
// (OpenBLAS sgemm with -tags openblas). n = 10,000 runs whole passes; at n = 70,000 one block of
// rows against every column (1/293 of a Rows pass, and the mean tasks of the first row block).

var (
	mnistOnce sync.Once
	mnistX    *mat.Dense
	mnistErr  string
)

// mnistAll returns the 70,000 MNIST images (training then test set) or skips b.
func mnistAll(b testing.TB) *mat.Dense {
	mnistOnce.Do(func() {
		dir := filepath.Join("..", "..", "shared", "data", "mnist")
		var parts []*mat.Dense
		for _, p := range []string{"train", "t10k"} {
			f := filepath.Join(dir, p+"-images-idx3-ubyte.gz")
			if _, err := os.Stat(f); err != nil {
				mnistErr = "MNIST (../shared/data/mnist beside the repository) is absent"
				return
			}
			s, err := dataset.LoadIDX(f, "")
			if err != nil {
				mnistErr = err.Error()
				return
			}
			parts = append(parts, s.X)
		}
		r0, d := parts[0].Dims()
		r1, _ := parts[1].Dims()
		x := mat.NewDense(r0+r1, d, nil)
		x.Slice(0, r0, 0, d).(*mat.Dense).Copy(parts[0])
		x.Slice(r0, r0+r1, 0, d).(*mat.Dense).Copy(parts[1])
		mnistX = x
	})
	if mnistX == nil {
		b.Skip(mnistErr)
	}
	return mnistX
}

// paths returns the paths to compare: single precision, and int8 when it runs natively.
func paths() []struct {
	name string
	i8   bool
} {
	p := []struct {
		name string
		i8   bool
	}{{"f32", false}}
	if blas.I8Native {
		p = append(p, struct {
			name string
			i8   bool
		}{"i8", true})
	}
	return p
}

func BenchmarkMNISTRows10000(b *testing.B) {
	x := mat.DenseCopyOf(mnistAll(b).Slice(0, 10000, 0, 784))
	for _, p := range paths() {
		b.Run(p.name, func(b *testing.B) {
			src := prepareWith(x, p.i8)
			b.ResetTimer()
			for b.Loop() {
				if err := rows(context.Background(), x, src, Options{Workers: 1}, "bench", func(int, int, []float64) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMNISTMean10000(b *testing.B) {
	x := mat.DenseCopyOf(mnistAll(b).Slice(0, 10000, 0, 784))
	for _, p := range paths() {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := meanDistance(context.Background(), x, Options{Workers: 1}, p.i8); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchBlock70000 runs op, which setup makes for each path's prepared form of all of MNIST and
// the rows of one block at n = 70,000, as one sub-benchmark per path.
func benchBlock70000(b *testing.B, setup func(src *source, rowsPer, n int) func()) {
	x := mnistAll(b)
	n, _ := x.Dims()
	rowsPer := blockRowsFor(n)
	for _, p := range paths() {
		b.Run(p.name, func(b *testing.B) {
			op := setup(prepareWith(x, p.i8), rowsPer, n)
			b.ResetTimer()
			for b.Loop() {
				op()
			}
		})
	}
}

// BenchmarkMNISTBlock70000 times one block of Rows at n = 70,000 (239 rows against all columns,
// products and distance rows).
func BenchmarkMNISTBlock70000(b *testing.B) {
	benchBlock70000(b, func(src *source, rowsPer, _ int) func() {
		buf := src.newBlockBuf(rowsPer)
		return func() {
			if err := src.block(0, rowsPer, buf, func(int, []float64) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMNISTMeanBlock70000 times MeanDistance's tasks of one row block at n = 70,000 (239
// rows against the columns from the block on, 2048 at a time: the block's share of the pass).
func BenchmarkMNISTMeanBlock70000(b *testing.B) {
	benchBlock70000(b, func(src *source, rowsPer, n int) func() {
		buf := src.newMeanBuf(rowsPer)
		return func() {
			var s float64
			for c0 := 0; c0 < n; c0 += meanChunk {
				s += src.meanTask(0, rowsPer, c0, min(c0+meanChunk, n), buf)
			}
			if s <= 0 {
				b.Fatal("no distances summed")
			}
		}
	})
}

// BenchmarkMean2D20000 times MeanDistance on a 2-D embedding of 20,000 points (the output side of
// package quality's first pass; 2·10⁸ pairs).
func BenchmarkMean2D20000(b *testing.B) {
	x := randData(20000, 2, false, 3)
	for b.Loop() {
		if _, err := MeanDistance(context.Background(), x, Options{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
