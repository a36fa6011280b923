package ptsne

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	iblas "github.com/lowdim/lowdim/internal/blas"
	"github.com/lowdim/lowdim/internal/deepnet"
	"github.com/lowdim/lowdim/internal/shared/sharedtest"
)

// BenchmarkEpochMNIST5000: one epoch (5 batches of 1,000) of the paper's 784–500–500–2000–2
// network on the first 5,000 MNIST training rows, from the random start; Pretrain1 adds one
// epoch of CD-1 for each of the four RBMs. Measured (-benchtime 1x, 3 runs interleaved with
// the previous build, medians, shared 2-core machine at load 4–6): the previous build's epoch
// (gonum's mat.Mul) 11.9 s, this one's 5.8 s; with pretraining 10.9 s.
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
	for _, pre := range []int{-1, 1} {
		name := map[int]string{-1: "Random", 1: "Pretrain1"}[pre]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (Embedder{Epochs: 1, Pretrain: pre}).Fit(context.Background(), d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFineTuneCG: one batch of fine-tuning of the paper's network on the first 2,000
// MNIST training rows (one batch of 2,000, from the random start): CG's 3 iterations (up to 19
// evaluations of the cost and its gradient) against Adam's single step on the same batch.
// Measured (-benchtime 1x -count 3, medians, the three CG runs then the three Adam runs, shared
// 2-core machine at load 3.5–4): CG 12.1 s, Adam 2.65 s, both including the batch's P and
// the random start.
func BenchmarkFineTuneCG(b *testing.B) {
	d, err := dataset.Load(filepath.Join(sharedtest.Data(b), "mnist", "train-images-idx3-ubyte.gz"), dataset.Options{})
	if err != nil {
		b.Skip(err)
	}
	idx := make([]int, 2000)
	for i := range idx {
		idx[i] = i
	}
	d = d.Subset(idx)
	for _, opt := range []Optimizer{CG, Adam} {
		b.Run(opt.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (Embedder{Epochs: 1, Batch: 2000, Pretrain: -1, Optimizer: opt}).Fit(context.Background(), d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkProduct: the network's largest products through gonum's mat.Mul (what ptsne used
// before) and through internal/blas's DgemmNT split over GOMAXPROCS workers (gemm, with the
// transposed copies it needs): a fine-tuning batch of 1,000 rows through the 500→2000 layer
// (forward A·W and the weight gradient Aᵀ·Δ), and an RBM mini-batch of 100 rows through it.
func BenchmarkProduct(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	fill := func(rows, cols int) *mat.Dense {
		m := mat.NewDense(rows, cols, nil)
		for i := range rows {
			for j := range cols {
				m.Set(i, j, r.Float64())
			}
		}
		return m
	}
	const in, out = 500, 2000
	w := fill(in, out)
	for _, rows := range []int{1000, 100} {
		a, delta := fill(rows, in), fill(rows, out)
		b.Run(fmt.Sprintf("forward/%d/gonum", rows), func(b *testing.B) {
			var c mat.Dense
			for b.Loop() {
				c.Mul(a, w)
			}
		})
		b.Run(fmt.Sprintf("forward/%d/blas", rows), func(b *testing.B) {
			g := deepnet.NewGemm(runtime.GOMAXPROCS(0))
			defer g.Close()
			wt, c := make([]float64, in*out), make([]float64, rows*out)
			for b.Loop() {
				iblas.Transpose(wt, w.RawMatrix().Data, in, out)
				g.NT(rows, out, in, 1, a.RawMatrix().Data, in, wt, in, 0, c, out)
			}
		})
		b.Run(fmt.Sprintf("gradient/%d/gonum", rows), func(b *testing.B) {
			var c mat.Dense
			for b.Loop() {
				c.Mul(a.T(), delta)
			}
		})
		b.Run(fmt.Sprintf("gradient/%d/blas", rows), func(b *testing.B) {
			g := deepnet.NewGemm(runtime.GOMAXPROCS(0))
			defer g.Close()
			at, dt, c := make([]float64, in*rows), make([]float64, out*rows), make([]float64, in*out)
			for b.Loop() {
				iblas.Transpose(at, a.RawMatrix().Data, rows, in)
				iblas.Transpose(dt, delta.RawMatrix().Data, rows, out)
				g.NT(in, out, rows, 1, at, rows, dt, rows, 0, c, out)
			}
		})
	}
}

// BenchmarkBatch5000 is the unit of the paper's fine-tuning on MNIST: one batch of 5,000 rows
// (the first 5,000 training rows, scaled to [0, 1]) through the 784–500–500–2000–2 network from
// a random start: Load computes the batch's P (the Gram matrix, σ_i per row, symmetrisation),
// CostGrad one evaluation of KL(P‖Q) and its gradient (forward, the pairwise passes, backward);
// CG runs 3 iterations of up to 6 evaluations on each batch.
func BenchmarkBatch5000(b *testing.B) {
	d, err := dataset.Load(filepath.Join(sharedtest.Data(b), "mnist", "train-images-idx3-ubyte.gz"), dataset.Options{})
	if err != nil {
		b.Skip(err)
	}
	const rows = 5000
	sizes := append(append([]int{784}, DefaultHidden...), 2)
	theta := initTheta(sizes, rand.New(rand.NewPCG(1, 1)))
	g := deepnet.NewGemm(runtime.GOMAXPROCS(0))
	defer g.Close()
	tr := newTrainer(sizes, DefaultPerplexity, 1, g, runtime.GOMAXPROCS(0))
	defer tr.close()
	idx := make([]int, rows)
	for i := range idx {
		idx[i] = i
	}
	mean := make([]float64, 784)
	b.Run("Load", func(b *testing.B) {
		for b.Loop() {
			tr.load(d.X, idx, mean, 255)
		}
	})
	grad := make([]float64, len(theta))
	b.Run("CostGrad", func(b *testing.B) {
		for b.Loop() {
			tr.costGrad(theta, grad)
		}
	})
}
