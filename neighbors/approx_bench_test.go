package neighbors

import (
	"context"
	"os"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
)

// The 70,000-row benchmarks search the first 50 principal components of all of MNIST for k = 90
// neighbours: the input nerv's approximate t-SNE path gives the search (PCADims 50, k = 3·30).

var (
	pcaOnce sync.Once
	pcaX    *mat.Dense
	pcaErr  error
)

// mnistPCA50 returns the first n rows of the 50 principal components of all of MNIST (directions
// fitted on 20,000 evenly spaced images, as nerv does), or skips tb.
func mnistPCA50(tb testing.TB, n int) *mat.Dense {
	x := mnistAll(tb)
	pcaOnce.Do(func() {
		const sample = 20000
		rows, h := x.Dims()
		fit := mat.NewDense(sample, h, nil)
		for r := range sample {
			fit.SetRow(r, x.RawRowView(r*rows/sample))
		}
		m, err := linproj.PCA{Dim: 50}.Fit(context.Background(), &dataset.Set{X: fit})
		if err != nil {
			pcaErr = err
			return
		}
		p := mat.NewDense(rows, 50, nil)
		if pcaErr = m.(*linproj.PCAModel).Transform(p, x); pcaErr == nil {
			pcaX = p
		}
	})
	if pcaErr != nil {
		tb.Fatal(pcaErr)
	}
	return mat.DenseCopyOf(pcaX.Slice(0, n, 0, 50))
}

// BenchmarkKNNMNIST70000 times the exact search (KNN) on the PCA-50 reduction of all of MNIST,
// k = 90. It takes minutes: it runs only when LOWDIM_BENCH_EXACT is set.
func BenchmarkKNNMNIST70000(b *testing.B) {
	if os.Getenv("LOWDIM_BENCH_EXACT") == "" {
		b.Skip("set LOWDIM_BENCH_EXACT=1 to time the exact search at 70,000 rows (minutes)")
	}
	x := mnistPCA50(b, 70000)
	b.ResetTimer()
	c0 := cpuTime()
	for b.Loop() {
		if _, err := KNN(context.Background(), x, 90, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
}

// sampleExact returns the exact k nearest lists of every step-th row of x (brute force over all
// rows with dist2, as KNN's lists), and those rows.
func sampleExact(x *mat.Dense, k, step int) ([][]int32, []int) {
	n, _ := x.Dims()
	var rows []int
	for i := 0; i < n; i += step {
		rows = append(rows, i)
	}
	out := make([][]int32, len(rows))
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var h TopK
			for r := w; r < len(rows); r += 2 {
				i := rows[r]
				h.Reset(k)
				xi := x.RawRowView(i)
				for j := 0; j < n; j++ {
					if j != i {
						h.Push(dist2(xi, x.RawRowView(j)), int32(j))
					}
				}
				out[r] = make([]int32, k)
				h.Sorted(out[r], make([]float64, k))
			}
		}()
	}
	wg.Wait()
	return out, rows
}

// benchApprox times ApproxKNN on the first n rows of MNIST's PCA-50 reduction, k = 90, and
// reports its CPU seconds (all workers) and its recall against the exact lists of every 70th row (1,000 rows at n = 70,000).
func benchApprox(b *testing.B, n int, o ApproxOptions) {
	x := mnistPCA50(b, n)
	exact, rows := sampleExact(x, 90, 70)
	var g *Graph
	b.ResetTimer()
	c0 := cpuTime()
	for b.Loop() {
		var err error
		if g, err = ApproxKNN(context.Background(), x, 90, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
	b.StopTimer()
	b.ReportMetric(recall(g, exact, rows), "recall")
}

// BenchmarkApproxKNNMNIST70000 times ApproxKNN with its defaults on all of MNIST (PCA-50, k = 90).
func BenchmarkApproxKNNMNIST70000(b *testing.B) { benchApprox(b, 70000, ApproxOptions{Seed: 1}) }

// BenchmarkApproxKNNMNIST20000 is the same search on the first 20,000 images.
func BenchmarkApproxKNNMNIST20000(b *testing.B) { benchApprox(b, 20000, ApproxOptions{Seed: 1}) }

// BenchmarkApproxKNNMNIST70000Settings times the settings the defaults were chosen among (the
// package doc gives the figures). It takes many minutes: it runs only when LOWDIM_BENCH_SETTINGS
// is set. "forest21" is the random-projection forest alone (pynndescent's 21 trees, leaves of
// 90, no NN-descent round).
func BenchmarkApproxKNNMNIST70000Settings(b *testing.B) {
	if os.Getenv("LOWDIM_BENCH_SETTINGS") == "" {
		b.Skip("set LOWDIM_BENCH_SETTINGS=1 to compare ApproxKNN's settings at 70,000 rows (many minutes)")
	}
	b.Run("forest21", func(b *testing.B) {
		x := mnistPCA50(b, 70000)
		exact, rows := sampleExact(x, 90, 70)
		var g *Graph
		b.ResetTimer()
		c0 := cpuTime()
		for b.Loop() {
			ctx := context.Background()
			s := &descent{x: x.RawMatrix().Data, n: 70000, d: 50, k: 90, seed: 1, nw: 2}
			s.reorder(ctx, 90)
			s.init()
			if err := s.seedTrees(ctx, 21, 90, nil); err != nil {
				b.Fatal(err)
			}
			s.fillRandom()
			var err error
			if g, err = s.graph(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
		b.StopTimer()
		b.ReportMetric(recall(g, exact, rows), "recall")
	})
	for _, c := range []struct {
		name string
		o    ApproxOptions
	}{
		{"pynndescent-21trees-60cand", ApproxOptions{Trees: 21, Candidates: 60}},
		{"10trees-60cand-3rounds", ApproxOptions{Trees: 10, Candidates: 60, Iterations: 3}},
		{"10trees-40cand-3rounds", ApproxOptions{Trees: 10, Candidates: 40, Iterations: 3}},
		{"10trees-40cand-delta0.01", ApproxOptions{Trees: 10, Candidates: 40, Delta: 0.01}},
	} {
		c.o.Seed = 1
		b.Run(c.name, func(b *testing.B) { benchApprox(b, 70000, c.o) })
	}
}
