package nerv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/neighbors"
)

var (
	mnistOnce sync.Once
	mnistSet  *dataset.Set
	mnistErr  string
)

// mnist returns the first n of MNIST's 70,000 images (training then test set) with their labels,
// or skips tb when ../shared/data/mnist is absent.
func mnist(tb testing.TB, n int) *dataset.Set {
	mnistOnce.Do(func() {
		dir := filepath.Join("..", "..", "shared", "data", "mnist")
		var parts []*dataset.Set
		for _, p := range []string{"train", "t10k"} {
			img := filepath.Join(dir, p+"-images-idx3-ubyte.gz")
			if _, err := os.Stat(img); err != nil {
				mnistErr = "MNIST (../shared/data/mnist beside the repository) is absent"
				return
			}
			s, err := dataset.LoadIDX(img, filepath.Join(dir, p+"-labels-idx1-ubyte.gz"))
			if err != nil {
				mnistErr = err.Error()
				return
			}
			parts = append(parts, s)
		}
		r0, d := parts[0].X.Dims()
		r1, _ := parts[1].X.Dims()
		x := mat.NewDense(r0+r1, d, nil)
		x.Slice(0, r0, 0, d).(*mat.Dense).Copy(parts[0].X)
		x.Slice(r0, r0+r1, 0, d).(*mat.Dense).Copy(parts[1].X)
		mnistSet = &dataset.Set{X: x, Labels: append(append([]int(nil), parts[0].Labels...), parts[1].Labels...)}
	})
	if mnistSet == nil {
		tb.Skip(mnistErr)
	}
	_, d := mnistSet.X.Dims()
	return &dataset.Set{X: mnistSet.X.Slice(0, n, 0, d).(*mat.Dense), Labels: mnistSet.Labels[:n]}
}

// benchApproxMNIST times the approximate evaluation (tree build or FFT grid, far-field sums, graph
// terms) of t-SNE, t-NeRV or NeRV on the first n MNIST digits, at a layout reached by a short t-SNE run.
func benchApproxMNIST(b *testing.B, n int, student bool, lambda float64) {
	d := mnist(b, n)
	ctx := context.Background()
	g, err := neighbors.KNN(ctx, d.X, 90, neighbors.Options{})
	if err != nil {
		b.Fatal(err)
	}
	mean, err := inputMean(ctx, d.X, 1, 2)
	if err != nil {
		b.Fatal(err)
	}
	sp, err := newSparseP(ctx, g, mean, 30, 0, student, true, rowSquares(d.X), 2)
	if err != nil {
		b.Fatal(err)
	}
	y, err := Embedder{}.approxStart(ctx, d.X, nil, n, 2, mean, true)
	if err != nil {
		b.Fatal(err)
	}
	eval := newApprox(sp, 2, lambda, student, DefaultTheta, 2).eval
	if !student {
		// NeRV's grid path, on the 50 principal components the fit itself searches
		x50, _, err := reducePCA(ctx, d.X, DefaultPCADims)
		if err != nil {
			b.Fatal(err)
		}
		gn, err := newGridNeRV(ctx, x50, sp, lambda, true, DefaultGridPCs, DefaultGridLevels, 2)
		if err != nil {
			b.Fatal(err)
		}
		eval = gn.eval
	}
	tsp := sp
	if !student {
		if tsp, err = newSparseP(ctx, g, mean, 30, 0, true, false, rowSquares(d.X), 2); err != nil {
			b.Fatal(err)
		}
	}
	if _, _, _, _, err := runGD(ctx, y, 2, gdSchedule{iters: 50, exagIters: 100, exag: 12, lr: float64(n) / 12}, (&approx{}).evalWith(newApprox(tsp, 2, 1, true, DefaultTheta, 2)), nil); err != nil {
		b.Fatal(err)
	}
	grad := make([]float64, len(y))
	b.ResetTimer()
	for b.Loop() {
		eval(y, grad, 1)
	}
}

func BenchmarkApproxEvalMNIST(b *testing.B) {
	for _, n := range []int{10000, 70000} {
		b.Run(fmt.Sprintf("tsne/n=%d", n), func(b *testing.B) { benchApproxMNIST(b, n, true, 1) })
		b.Run(fmt.Sprintf("tnerv0.1/n=%d", n), func(b *testing.B) { benchApproxMNIST(b, n, true, 0.1) })
		b.Run(fmt.Sprintf("nerv0.1/n=%d", n), func(b *testing.B) { benchApproxMNIST(b, n, false, 0.1) })
	}
}

// BenchmarkRenumberedEval times a t-SNE evaluation at 300,000 rows (a seeded 20-component
// Gaussian mixture in 5-D, like the scaling table's but cheaper to search) with the rows in
// input order and renumbered in the layout's tree order (renumber.go), at a layout after 100
// exaggerated and 50 plain iterations.
func BenchmarkRenumberedEval(b *testing.B) {
	const n, dim, comps = 300000, 5, 20
	rng := rand.New(rand.NewPCG(1, 2))
	means := make([]float64, comps*dim)
	for k := range means {
		means[k] = 10 * rng.NormFloat64()
	}
	x := mat.NewDense(n, dim, nil)
	for i := range n {
		c := rng.IntN(comps)
		for d := range dim {
			x.Set(i, d, means[c*dim+d]+rng.NormFloat64())
		}
	}
	ctx := context.Background()
	g, err := neighbors.ApproxKNN(ctx, x, 90, neighbors.ApproxOptions{})
	if err != nil {
		b.Fatal(err)
	}
	mean, err := inputMean(ctx, x, 1, 2)
	if err != nil {
		b.Fatal(err)
	}
	sp, err := newSparseP(ctx, g, mean, 30, 0, true, false, rowSquares(x), 2)
	if err != nil {
		b.Fatal(err)
	}
	y, err := Embedder{}.approxStart(ctx, x, nil, n, 2, mean, true)
	if err != nil {
		b.Fatal(err)
	}
	if _, _, _, _, err := runGD(ctx, y, 2, gdSchedule{iters: 50, exagIters: 100, exag: 12, lr: float64(n) / 12}, newApprox(sp, 2, 1, true, DefaultTheta, 2).eval, nil); err != nil {
		b.Fatal(err)
	}
	order := layoutOrder(y, 2)
	plain, renum := newApprox(sp, 2, 1, true, DefaultTheta, 2), newApprox(sp.renumber(order), 2, 1, true, DefaultTheta, 2)
	yr := permuteRows(y, 2, order)
	grad := make([]float64, len(y))
	b.Run("input-order", func(b *testing.B) {
		for b.Loop() {
			plain.eval(y, grad, 1)
		}
	})
	b.Run("renumbered", func(b *testing.B) {
		for b.Loop() {
			renum.eval(yr, grad, 1)
		}
	})
}
