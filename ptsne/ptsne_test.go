package ptsne

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/affinity"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/deepnet"
	"github.com/lowdim/lowdim/internal/deepnet/deepnettest"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/modelio/modeliotest"
	"github.com/lowdim/lowdim/quality"
)

func rangeN(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// TestGradient: central differences of the batch cost KL(P‖Q) against the back-propagated
// gradient for every parameter of a 6–5–4–2 network on 12 rows, for α = 1 and α = 2.5.
func TestGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	x := mat.NewDense(12, 6, nil)
	for i := range 12 {
		for j := range 6 {
			x.Set(i, j, r.NormFloat64())
		}
	}
	sizes := []int{6, 5, 4, 2}
	for _, alpha := range []float64{1, 2.5} {
		theta := initTheta(sizes, r)
		for i := range theta {
			theta[i] += 0.3 * r.NormFloat64() // biases too
		}
		tr := newTrainer(sizes, 4, alpha, deepnet.NewGemm(1), 2)
		defer tr.close()
		tr.load(x, rangeN(12), make([]float64, 6), 1)
		grad := make([]float64, len(theta))
		tr.costGrad(theta, grad)
		scratch := make([]float64, len(theta))
		nums := fd.Gradient(nil, func(th []float64) float64 { return tr.costGrad(th, scratch) }, theta, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		for k, num := range nums {
			if math.Abs(num-grad[k]) > 1e-6*math.Max(1e-3, math.Abs(num)) {
				t.Errorf("α = %g, θ[%d]: back-propagated %.10g, central difference %.10g", alpha, k, grad[k], num)
			}
		}
	}
}

// TestPRows: each batch's P is symmetric, sums to 1 and has a zero diagonal.
func TestPRows(t *testing.T) {
	d := dataset.Digits().Subset(rangeN(50))
	tr := newTrainer([]int{64, 3, 2}, 10, 1, deepnet.NewGemm(1), 2)
	defer tr.close()
	tr.load(d.X, rangeN(50), make([]float64, 64), 16)
	var sum float64
	for i := range 50 {
		if tr.p.At(i, i) != 0 {
			t.Fatalf("p_%d%d = %v", i, i, tr.p.At(i, i))
		}
		for j := range 50 {
			sum += tr.p.At(i, j)
			if tr.p.At(i, j) != tr.p.At(j, i) {
				t.Fatalf("P not symmetric at %d,%d", i, j)
			}
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("Σ p_ij = %v", sum)
	}
}

// TestPairsDefinition recomputes a batch's P and KL(P‖Q) from their definitions (package doc,
// Cost) with plain serial loops: the pairwise passes, split over spans of rows with the Gram
// matrix from the network's product kernel, agree to 1e-12 (relative), and give the same bits on
// 1 and 3 workers. 70 rows: more than pairBlocks spans' worth, so every span has rows.
func TestPairsDefinition(t *testing.T) {
	const b, perp = 70, 8.0
	d := dataset.Digits().Subset(rangeN(b))
	sizes := []int{64, 5, 2}
	r := rand.New(rand.NewPCG(7, 7))
	theta := initTheta(sizes, r)
	for _, alpha := range []float64{1, 1.7} {
		var bits [][]float64
		for _, workers := range []int{1, 3} {
			tr := newTrainer(sizes, perp, alpha, deepnet.NewGemm(workers), workers)
			defer tr.close()
			tr.load(d.X, rangeN(b), make([]float64, 64), 16)
			grad := make([]float64, len(theta))
			cost := tr.costGrad(theta, grad)
			bits = append(bits, append(append(slices.Clone(tr.p.RawMatrix().Data), cost), grad...))

			// P by definition.
			x := mat.DenseCopyOf(d.X)
			x.Scale(1.0/16, x)
			want := mat.NewDense(b, b, nil)
			for i := range b {
				d2 := make([]float64, 0, b-1)
				for j := range b {
					if j != i {
						var s float64
						for k := range 64 {
							e := x.At(i, k) - x.At(j, k)
							s += e * e
						}
						d2 = append(d2, s)
					}
				}
				s2 := affinity.Sigma2(d2, perp, affinity.Exact)
				var z float64
				for _, v := range d2 {
					z += math.Exp(-v / s2)
				}
				k := 0
				for j := range b {
					if j != i {
						want.Set(i, j, math.Exp(-d2[k]/s2)/z)
						k++
					}
				}
			}
			for i := range b {
				for j := range b {
					if i == j {
						continue
					}
					pij := (want.At(i, j) + want.At(j, i)) / (2 * b)
					if got := tr.p.At(i, j); math.Abs(got-pij) > 1e-12*pij {
						t.Fatalf("α %g, %d workers: p_%d,%d = %.16g, definition %.16g", alpha, workers, i, j, got, pij)
					}
				}
			}

			// KL(P‖Q) by definition at the network's output.
			y := tr.net.Out()
			var z float64
			w := func(i, j int) float64 {
				var s float64
				for k := range 2 {
					e := y.At(i, k) - y.At(j, k)
					s += e * e
				}
				return math.Pow(1+s/alpha, -(alpha+1)/2)
			}
			for i := range b {
				for j := range b {
					if i != j {
						z += w(i, j)
					}
				}
			}
			var kl float64
			for i := range b {
				for j := range b {
					if p := tr.p.At(i, j); i != j {
						kl += p * math.Log(p*z/w(i, j))
					}
				}
			}
			if math.Abs(cost-kl) > 1e-12*kl {
				t.Errorf("α %g, %d workers: cost %.16g, definition %.16g", alpha, workers, cost, kl)
			}
		}
		for k := range bits[0] {
			if math.Float64bits(bits[0][k]) != math.Float64bits(bits[1][k]) {
				t.Fatalf("α %g: value %d differs between 1 and 3 workers: %v, %v", alpha, k, bits[0][k], bits[1][k])
			}
		}
	}
}

// TestFit: on 1,000 digits a small network (64–100–2) keeps neighbourhoods better than PCA:
// 5-NN error and trustworthiness T(20) both better, the cost falls, and Transform of the
// training rows is the embedding. It is also the same bytes on 1 and 2 workers. Both
// optimisers.
func TestFit(t *testing.T) {
	if testing.Short() {
		t.Skip("parametric t-SNE fits of 1,000 rows")
	}
	for _, e := range []Embedder{
		{Hidden: []int{100}, Batch: 500, Epochs: 100, LearningRate: 1e-2, Seed: 1},
		{Hidden: []int{100}, Batch: 500, Epochs: 20, Optimizer: CG, Seed: 1},
	} {
		t.Run(e.Optimizer.String(), func(t *testing.T) { testFit(t, e) })
	}
}

func testFit(t *testing.T, e Embedder) {
	d := dataset.Digits().Subset(rangeN(1000))
	ctx := context.Background()
	fit := func(procs int) *Model {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		m, err := e.Fit(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		return m.(*Model)
	}
	m := fit(2)
	pca, err := linproj.PCA{}.Fit(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	score := func(y *mat.Dense) (float64, float64) {
		e, err := quality.KNNError(ctx, y, d.Labels, quality.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := quality.Trustworthiness(ctx, d.X, y, quality.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return e, tr[len(tr)-1]
	}
	e1, t1 := score(m.Embedding())
	e0, t0 := score(pca.Embedding())
	t.Logf("cost %.3f → %.3f; 5-NN error %.3f (PCA %.3f), T(20) %.4f (PCA %.4f)", m.Cost[0], m.Cost[len(m.Cost)-1], e1, e0, t1, t0)
	if !(e1 < e0 && t1 > t0) {
		t.Errorf("no better than PCA")
	}
	if !(m.Cost[len(m.Cost)-1] < m.Cost[0]) {
		t.Errorf("cost rose from %v to %v", m.Cost[0], m.Cost[len(m.Cost)-1])
	}
	var y mat.Dense
	if err := m.Transform(&y, d.X); err != nil || !mat.Equal(&y, m.Embedding()) {
		t.Errorf("Transform of the training rows differs from the embedding (%v)", err)
	}
	if m1 := fit(1); !mat.Equal(m1.Embedding(), m.Embedding()) {
		t.Error("GOMAXPROCS 1 and 2 give different embeddings")
	}
}

func TestBadInput(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0, 1, 1, 0, 2, 2, 3, 1})
	for _, c := range []struct {
		name string
		d    *dataset.Set
		e    Embedder
		want string
	}{
		{"nil", nil, Embedder{}, "no data"},
		{"perplexity", &dataset.Set{X: x}, Embedder{}, "Perplexity 30 out of range"},
		{"hidden", &dataset.Set{X: x}, Embedder{Hidden: []int{0}, Perplexity: 2}, "Hidden"},
		{"tiny", &dataset.Set{X: mat.NewDense(2, 1, []float64{0, 1})}, Embedder{}, "at least 3"},
		{"NaN", &dataset.Set{X: mat.NewDense(4, 1, []float64{0, 1, math.NaN(), 2})}, Embedder{Perplexity: 2}, "NaN"},
		{"range", &dataset.Set{X: mat.NewDense(4, 1, []float64{-1e308, 1, 0, 1e308})}, Embedder{Perplexity: 2}, "too wide"},
		{"optimizer", &dataset.Set{X: x}, Embedder{Perplexity: 2, Optimizer: 7}, "Optimizer(7): expected Adam or CG"},
		{"iterations", &dataset.Set{X: x}, Embedder{Perplexity: 2, Optimizer: CG, CGIterations: -1}, "CGIterations -1"},
		// Batch 0 is 1,000 rows with Adam, the paper's 5,000 with CG (both capped at n).
		{"adam batch", &dataset.Set{X: mat.NewDense(6000, 1, nil)}, Embedder{Perplexity: 5000}, "out of range (1, 999)"},
		{"cg batch", &dataset.Set{X: mat.NewDense(6000, 1, nil)}, Embedder{Perplexity: 5000, Optimizer: CG}, "out of range (1, 4999)"},
		{"cg batch capped", &dataset.Set{X: mat.NewDense(4000, 1, nil)}, Embedder{Perplexity: 5000, Optimizer: CG}, "out of range (1, 3999)"},
	} {
		_, err := c.e.Fit(context.Background(), c.d)
		if err == nil || !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one wrapping ErrInvalid and saying %q", c.name, err, c.want)
		}
	}
}

// TestTransformChunks: rows beyond one chunk (here 2 rows: θ has 26 numbers, the layers 9 units)
// embed as they do alone.
func TestTransformChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	sizes := []int{3, 4, 2}
	m := &Model{Sizes: sizes, Theta: initTheta(sizes, r), Mean: []float64{1, 2, 3}, Scale: 2}
	x := mat.NewDense(deepnet.EncodeChunk+7, 3, nil)
	for i := range deepnet.EncodeChunk + 7 {
		for j := range 3 {
			x.Set(i, j, r.NormFloat64())
		}
	}
	var all, one mat.Dense
	if err := m.Transform(&all, x); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, deepnet.EncodeChunk - 1, deepnet.EncodeChunk, deepnet.EncodeChunk + 6} {
		one.Reset()
		if err := m.Transform(&one, x.Slice(i, i+1, 0, 3)); err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(&one, all.Slice(i, i+1, 0, 2), 1e-12) {
			t.Errorf("row %d: alone %v, in the batch %v", i, mat.Formatted(&one), mat.Formatted(all.Slice(i, i+1, 0, 2)))
		}
	}
}

// TestModelFile: a saved model loads back and transforms to the same bytes.
func TestModelFile(t *testing.T) {
	d := dataset.Digits().Subset(rangeN(60))
	m, err := Embedder{Hidden: []int{8}, Epochs: 2, Perplexity: 10, Seed: 2}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := modelio.Encode(&buf, m.(*Model)); err != nil {
		t.Fatal(err)
	}
	got, err := modelio.Decode(&buf, "test")
	if err != nil {
		t.Fatal(err)
	}
	var a, b mat.Dense
	if err := m.(*Model).Transform(&a, d.X); err != nil {
		t.Fatal(err)
	}
	if err := got.(*Model).Transform(&b, d.X); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(&a, &b) || !mat.Equal(got.(*Model).Embedding(), m.Embedding()) {
		t.Error("the loaded model embeds differently")
	}
}

func FuzzDecodePtsne(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 1))
	sizes := []int{3, 4, 2}
	m := &Model{Sizes: sizes, Theta: initTheta(sizes, r), Mean: []float64{1, 2, 3}, Scale: 2, Cost: []float64{1.5}}
	m.y = mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	p, _ := m.MarshalBinary()
	modeliotest.FuzzPayload(f, decode, version, nil, p)
}

// TestInputScale: the normalised training rows have unit variance per feature on average, the
// input Glorot's start assumes. Scaled by the RMS norm of the rows instead, the 64 features of
// the digits had variance 1/64 each, and the paper's network collapsed USPS onto a line.
func TestInputScale(t *testing.T) {
	d := dataset.Digits().Subset(rangeN(200))
	m, err := Embedder{Hidden: []int{4}, Batch: 100, Epochs: 1, Pretrain: -1, Seed: 1}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	pm := m.(*Model)
	n, h := d.X.Dims()
	var ss float64
	for i := range n {
		for j, v := range d.X.RawRowView(i) {
			z := (v - pm.Mean[j]) / pm.Scale
			ss += z * z
		}
	}
	if v := ss / float64(n*h); math.Abs(v-1) > 1e-12 {
		t.Errorf("mean variance of the normalised features %v, want 1", v)
	}
}

// TestOnEpoch: the hook's contract (package deepnettest) on a small network.
func TestOnEpoch(t *testing.T) {
	d := dataset.Digits().Subset(rangeN(120))
	deepnettest.OnEpoch(t, d.X, func(hook func(epoch, costs int, m deepnettest.Model)) (deepnettest.Model, error) {
		e := Embedder{Hidden: []int{8}, Epochs: 3, Batch: 60, Perplexity: 10, Seed: 4}
		e.OnEpoch = func(ep int, m *Model) { hook(ep, len(m.Cost), m) }
		m, err := e.Fit(context.Background(), d)
		if err != nil {
			return nil, err
		}
		return m.(*Model), nil
	})
}
