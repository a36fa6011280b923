package deepae

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/deepnet"
	"github.com/lowdim/lowdim/internal/deepnet/deepnettest"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/modelio/modeliotest"
)

func digits(n int) *dataset.Set {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return dataset.Digits().Subset(idx)
}

// TestGradient: central differences (step 1e-6) of the batch cross-entropy against the
// back-propagated gradient, for every parameter of a 6–5–3–2–3–5–6 autoencoder (decoder,
// linear code, encoder) at random weights N(0, 1) and random targets in [0, 1]. The tolerance
// 1e-6 relative to the largest gradient entry is what central differences of a smooth cost of
// order 1 give at this step (their error is O(h²) plus rounding O(ε/h) ≈ 1e-10).
func TestGradient(t *testing.T) {
	sizes := []int{6, 5, 3, 2, 3, 5, 6}
	rng := rand.New(rand.NewPCG(1, 2))
	theta := make([]float64, deepnet.Params(sizes))
	for i := range theta {
		theta[i] = rng.NormFloat64()
	}
	const rows = 7
	tr := newTrainer(sizes, rows, deepnet.NewGemm(1))
	x := make([]float64, rows*6)
	for i := range x {
		x[i] = rng.Float64()
	}
	idx := []int{0, 1, 2, 3, 4, 5, 6}
	tr.load(idx, func(dst []float64, idx []int) { copy(dst, x) })
	grad := make([]float64, len(theta))
	tr.costGrad(theta, grad)
	scale := 0.0
	for _, g := range grad {
		scale = math.Max(scale, math.Abs(g))
	}
	tmp := make([]float64, len(theta))
	num := fd.Gradient(nil, func(th []float64) float64 { return tr.costGrad(th, tmp) }, theta, &fd.Settings{Formula: fd.Central, Step: 1e-6})
	for i, v := range num {
		if math.Abs(v-grad[i]) > 1e-6*scale {
			t.Errorf("∂C/∂θ[%d]: back-propagated %v, central difference %v", i, grad[i], v)
		}
	}
}

// TestCrossEntropySaturated: an output pre-activation of ±800 (σ = 0 or 1 in float64) gives a
// finite cost: |z| for the wrong target, 0 for the right one.
func TestCrossEntropySaturated(t *testing.T) {
	sizes := []int{1, 1, 1, 1, 1}
	// θ: layers 1..4 each one weight and one bias; the last bias sets z.
	for _, c := range []struct{ z, x, want float64 }{{800, 0, 800}, {-800, 1, 800}, {800, 1, 0}, {-800, 0, 0}} {
		theta := []float64{0, 0, 0, 0, 0, 0, 0, c.z}
		tr := newTrainer(sizes, 1, deepnet.NewGemm(1))
		tr.load([]int{0}, func(dst []float64, _ []int) { dst[0] = c.x })
		got := tr.costGrad(theta, make([]float64, len(theta)))
		if math.Abs(got-c.want) > 1e-9 {
			t.Errorf("z %v, x %v: cost %v, want %v", c.z, c.x, got, c.want)
		}
	}
}

// TestFineTuning: on 500 digits, fine-tuning lowers the mean cross-entropy per row towards its
// floor, the targets' own entropy Σ_j H(x̃_ij) (13.43 nats per row here: the pixels are grey
// levels, not bits). Each epoch's cost is the mean over its batches at their start. Seed 1 gave
// 25.02 in the first epoch and 22.29 after 10, an excess over the floor falling from 11.6 to
// 8.9 (24 %; two line searches a batch, CGIterations 3, gave 25.63 and 23.06, 21 %); the test
// asks for 10 %, and for a first epoch below the constant output 0.5
// (64·log 2 = 44.4 nats). A 2-unit code is a narrow bottleneck: with 5 epochs of pretraining
// instead of 20 the code's spread was 0.01 and fine-tuning gained under 1 %.
func TestFineTuning(t *testing.T) {
	d := digits(500)
	var floor float64
	for i := range 500 {
		for _, v := range d.X.RawRowView(i) {
			if x := v / 16; x > 0 && x < 1 {
				floor -= x*math.Log(x) + (1-x)*math.Log(1-x)
			}
		}
	}
	floor /= 500
	m, err := Embedder{Hidden: []int{100, 50}, Pretrain: 20, Epochs: 10, Batch: 100, Seed: 1}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	c := m.(*Model).Cost
	first, last := c[0], c[len(c)-1]
	t.Logf("entropy floor %.2f; cost per epoch: %.2f", floor, c)
	if !(first < 64*math.Log(2)) || !(last-floor < 0.9*(first-floor)) {
		t.Errorf("cost %v → %v (floor %v): want below 44.4 at the start and 10 %% nearer the floor at the end", first, last, floor)
	}
	// The embedding is the encoder's output: Transform of the training rows gives it again.
	var y mat.Dense
	if err := m.(*Model).Transform(&y, d.X); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(&y, m.Embedding()) {
		t.Error("Transform of the training rows differs from the embedding")
	}
}

// TestUnroll: before fine-tuning the decoder's weights are the encoder's transposed and its
// biases the RBMs' visible biases.
func TestUnroll(t *testing.T) {
	sizes := []int{4, 3, 2, 3, 4}
	theta := make([]float64, deepnet.Params(sizes))
	for l := 1; l <= 2; l++ {
		w, _ := deepnet.Layer(sizes, theta, l)
		for i := range w.RawMatrix().Data {
			w.RawMatrix().Data[i] = float64(10*l + i)
		}
	}
	unroll(sizes, theta, [][]float64{{1, 2, 3, 4}, {5, 6, 7}})
	for l := 1; l <= 2; l++ {
		w, _ := deepnet.Layer(sizes, theta, l)
		wd, bd := deepnet.Layer(sizes, theta, 5-l)
		if !mat.Equal(wd, w.T()) {
			t.Errorf("decoder layer %d is not encoder layer %d transposed", 5-l, l)
		}
		if want := [][]float64{{1, 2, 3, 4}, {5, 6, 7}}[l-1]; !slices.Equal(bd, want) {
			t.Errorf("decoder layer %d biases %v, want %v", 5-l, bd, want)
		}
	}
}

// TestDeterministic: the same seed gives the same bytes on 1 and 2 workers (products of 100
// and more units are split into 16 blocks on 2).
func TestDeterministic(t *testing.T) {
	d := digits(300)
	e := Embedder{Hidden: []int{100, 80}, Pretrain: 2, Epochs: 2, Batch: 150, Seed: 5}
	fit := func(procs int) *Model {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		m, err := e.Fit(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		return m.(*Model)
	}
	m1, m2 := fit(1), fit(2)
	if !mat.Equal(m1.Embedding(), m2.Embedding()) || !bitsEqual(m1.Theta, m2.Theta) {
		t.Error("GOMAXPROCS 1 and 2 give different models")
	}
	if m1.Scale != 16 || m1.Offset[0] != 0 {
		t.Errorf("normalisation (x − %v)/%v, want (x − 0)/16 (the digits' pixels span 0…16)", m1.Offset[0], m1.Scale)
	}
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestBadInput: no rows, one row, a NaN, bad settings and bad Transform arguments are
// dataset.Invalidf errors.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	nan := digits(10)
	nan.X.Set(3, 4, math.NaN())
	for name, c := range map[string]struct {
		e Embedder
		d *dataset.Set
	}{
		"nil":     {Embedder{}, nil},
		"no rows": {Embedder{}, &dataset.Set{X: &mat.Dense{}}},
		"one row": {Embedder{}, digits(1)},
		"NaN":     {Embedder{}, nan},
		"Hidden":  {Embedder{Hidden: []int{3, 0}}, digits(10)},
		"Dim":     {Embedder{Dim: -1}, digits(10)},
		"Epochs":  {Embedder{Epochs: -2}, digits(10)},
	} {
		if _, err := c.e.Fit(ctx, c.d); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: error %v, want dataset.ErrInvalid", name, err)
		}
	}
	m, err := Embedder{Hidden: []int{8}, Pretrain: 1, Epochs: 1, Seed: 1}.Fit(ctx, digits(20))
	if err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(2, 64, nil)
	x.Set(1, 2, math.Inf(1))
	for name, c := range map[string]struct {
		dst *mat.Dense
		x   mat.Matrix
	}{
		"columns": {&mat.Dense{}, mat.NewDense(2, 3, nil)},
		"Inf":     {&mat.Dense{}, x},
		"dst":     {mat.NewDense(2, 3, nil), mat.NewDense(2, 64, nil)},
	} {
		if err := m.(*Model).Transform(c.dst, c.x); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("Transform %s: error %v, want dataset.ErrInvalid", name, err)
		}
	}
}

// BenchmarkCostGrad: one cost and gradient of a batch of 1,000 rows through the default
// network on 64 inputs (the digits): 64–500–500–2000–2–2000–500–500–64.
func BenchmarkCostGrad(b *testing.B) {
	d := digits(1000)
	sizes := []int{64, 500, 500, 2000, 2, 2000, 500, 500, 64}
	rng := rand.New(rand.NewPCG(1, 2))
	theta := make([]float64, deepnet.Params(sizes))
	for i := range theta {
		theta[i] = 0.1 * rng.NormFloat64()
	}
	g := deepnet.NewGemm(runtime.GOMAXPROCS(0))
	defer g.Close()
	tr := newTrainer(sizes, 1000, g)
	idx := make([]int, 1000)
	for i := range idx {
		idx[i] = i
	}
	tr.load(idx, func(dst []float64, idx []int) {
		for a, i := range idx {
			for j, v := range d.X.RawRowView(i) {
				dst[a*64+j] = v / 16
			}
		}
	})
	grad := make([]float64, len(theta))
	b.ReportAllocs()
	for b.Loop() {
		tr.costGrad(theta, grad)
	}
}

// TestModelFile: a saved model loads back and encodes to the same bytes.
func TestModelFile(t *testing.T) {
	d := digits(60)
	m, err := Embedder{Hidden: []int{8}, Pretrain: 2, Epochs: 2, Seed: 2}.Fit(context.Background(), d)
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

func FuzzDecodeDeepae(f *testing.F) {
	sizes := []int{3, 2, 1, 2, 3}
	theta := make([]float64, deepnet.Params(sizes))
	for i := range theta {
		theta[i] = float64(i) / 10
	}
	m := &Model{Sizes: sizes, Theta: theta, Offset: []float64{0, 0, 0}, Scale: 2, Cost: []float64{1.5}}
	m.y = mat.NewDense(2, 1, []float64{1, 2})
	p, _ := m.MarshalBinary()
	modeliotest.FuzzPayload(f, decode, version, nil, p)
}

// TestOnEpoch: the hook's contract (package deepnettest) on a small autoencoder.
func TestOnEpoch(t *testing.T) {
	d := digits(200)
	deepnettest.OnEpoch(t, d.X, func(hook func(epoch, costs int, m deepnettest.Model)) (deepnettest.Model, error) {
		e := Embedder{Hidden: []int{16}, Pretrain: 2, Epochs: 3, Batch: 50, Seed: 3}
		e.OnEpoch = func(ep int, m *Model) { hook(ep, len(m.Cost), m) }
		m, err := e.Fit(context.Background(), d)
		if err != nil {
			return nil, err
		}
		return m.(*Model), nil
	})
}
