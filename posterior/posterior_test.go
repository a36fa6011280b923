package posterior

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/modelio/modeliotest"
)

// TestObjectiveGradient compares the analytic gradient of the objective with central
// differences in several random configurations, one with logits so extreme that the class
// likelihoods underflow and the log-space branch is taken.
func TestObjectiveGradient(t *testing.T) {
	for ci, cfg := range []struct {
		n, h, k, g int
		s, gs      float64 // width, spread of the random logits
		alpha      float64
		extreme    bool
	}{
		{n: 30, h: 3, k: 2, g: 2, s: 1, gs: 1},
		{n: 100, h: 5, k: 3, g: 7, s: 0.7, gs: 2, alpha: 0.5},
		{n: 150, h: 2, k: 4, g: 12, s: 2.5, gs: 0.3},
		{n: 70, h: 4, k: 3, g: 5, s: 1.2, gs: 1, extreme: true},
	} {
		rng := rand.New(rand.NewPCG(uint64(ci), 9))
		d := blobs(cfg.n, cfg.h, cfg.k, 3, uint64(ci))
		td, err := DiscriminativeMixture{}.prepare(d)
		if err != nil {
			t.Fatal(err)
		}
		o := newObjective(td.x, td.labels, td.h, td.k, cfg.g, cfg.s)
		o.alpha = cfg.alpha
		theta := make([]float64, o.dim())
		for i := range theta[:cfg.g*cfg.h] {
			theta[i] = rng.NormFloat64()
		}
		for i := range theta[cfg.g*cfg.h:] {
			theta[cfg.g*cfg.h+i] = cfg.gs * rng.NormFloat64()
		}
		if cfg.extreme {
			// class 0 gets β ≈ e^−700 everywhere: Σ_g β_0g e_g underflows the guard.
			for j := 0; j < cfg.g; j++ {
				theta[cfg.g*cfg.h+j] = -700
			}
		}
		grad := make([]float64, len(theta))
		o.Grad(grad, theta)
		f0 := o.Func(theta)
		if math.IsNaN(f0) || math.IsInf(f0, 0) {
			t.Fatalf("config %d: objective %v", ci, f0)
		}
		if cfg.extreme && f0 < 600/float64(cfg.n) {
			// a third of the rows are class 0 and each costs about 700 nats
			t.Fatalf("config %d: objective %v does not reflect the extreme logits", ci, f0)
		}
		const step = 1e-5
		th := slices.Clone(theta)
		for i := range theta {
			th[i] = theta[i] + step
			fp := o.Func(th)
			th[i] = theta[i] - step
			fm := o.Func(th)
			th[i] = theta[i]
			fd := (fp - fm) / (2 * step)
			// Central differences: truncation O(step²) plus rounding O(ε·|f|/step).
			tol := 1e-7 * (1 + math.Abs(f0))
			if math.Abs(fd-grad[i]) > tol {
				t.Errorf("config %d: ∂f/∂θ[%d] = %.10g, central difference %.10g", ci, i, grad[i], fd)
			}
		}
	}
}

// TestLogPosteriorGradient checks ∇_x log p̂(c|x) against central differences of log p̂ and
// log p̂ against the posteriors.
func TestLogPosteriorGradient(t *testing.T) {
	for ci, cfg := range []struct {
		g, h, k int
		gs, s   float64
	}{{4, 3, 2, 1, 1}, {10, 5, 4, 2, 1.5}, {20, 2, 6, 3, 0.6}} {
		m := randomMixture(cfg.g, cfg.h, cfg.k, cfg.gs, cfg.s, uint64(ci))
		rng := rand.New(rand.NewPCG(uint64(ci), 5))
		for trial := 0; trial < 5; trial++ {
			x := make([]float64, cfg.h)
			for j := range x {
				x[j] = 2 * rng.NormFloat64()
			}
			var grad mat.Dense
			logp := make([]float64, cfg.k)
			if err := m.LogPosteriorGradient(&grad, logp, x); err != nil {
				t.Fatal(err)
			}
			var p mat.Dense
			if err := m.Posteriors(&p, mat.NewDense(1, cfg.h, x)); err != nil {
				t.Fatal(err)
			}
			for c := 0; c < cfg.k; c++ {
				if math.Abs(math.Exp(logp[c])-p.At(0, c)) > 1e-12 {
					t.Errorf("exp(log p̂(%d|x)) = %v, Posteriors %v", c, math.Exp(logp[c]), p.At(0, c))
				}
			}
			const step = 1e-6
			lp, lm := make([]float64, cfg.k), make([]float64, cfg.k)
			var scratch mat.Dense
			for j := 0; j < cfg.h; j++ {
				xp, xm := slices.Clone(x), slices.Clone(x)
				xp[j] += step
				xm[j] -= step
				if err := m.LogPosteriorGradient(&scratch, lp, xp); err != nil {
					t.Fatal(err)
				}
				if err := m.LogPosteriorGradient(&scratch, lm, xm); err != nil {
					t.Fatal(err)
				}
				for c := 0; c < cfg.k; c++ {
					fd := (lp[c] - lm[c]) / (2 * step)
					if g := grad.At(c, j); math.Abs(fd-g) > 1e-6*(1+math.Abs(g)) {
						t.Errorf("config %d: ∂log p̂(%d|x)/∂x_%d = %v, central difference %v", ci, c, j, g, fd)
					}
				}
			}
		}
	}
}

// TestPosteriorsFarAway: rows sum to 1, also for a point so far from every centre that the
// unshifted Gaussians all underflow to 0.
func TestPosteriorsFarAway(t *testing.T) {
	m := randomMixture(8, 3, 3, 2, 0.5, 1)
	x := mat.NewDense(3, 3, []float64{0, 0, 0, 1e3, -1e3, 5e2, 1, 2, 3})
	var p mat.Dense
	if err := m.Posteriors(&p, x); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		row := p.RawRowView(i)
		if s := floats.Sum(row); math.Abs(s-1) > 1e-14 {
			t.Errorf("row %d sums to %v", i, s)
		}
		for _, v := range row {
			if math.IsNaN(v) || v < 0 {
				t.Errorf("row %d: %v", i, row)
			}
		}
	}
	// Far away the nearest centre dominates: the posterior is its β column.
	beta, _ := m.Beta()
	far := []float64{1e3, -1e3, 5e2}
	best, bd := 0, math.Inf(1)
	for j := 0; j < 8; j++ {
		if d := sqDist(far, m.Centers.RawRowView(j)); d < bd {
			best, bd = j, d
		}
	}
	for c := 0; c < 3; c++ {
		if math.Abs(p.At(1, c)-beta.At(c, best)) > 1e-9 {
			t.Errorf("far posterior %v, nearest centre's β %v", p.RawRowView(1), mat.Col(nil, best, beta))
		}
	}
}

func fitBlobs(t *testing.T, dm DiscriminativeMixture, d *dataset.Set) *Mixture {
	t.Helper()
	m, err := dm.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFitSeparable: on well-separated classes the chosen model classifies fresh rows almost
// perfectly, the held-out table is filled and the same seed gives the same bytes.
func TestFitSeparable(t *testing.T) {
	train := blobs(300, 4, 3, 12, 7)
	// Same seed: same class means; rows 300..599 are fresh draws.
	test := blobs(600, 4, 3, 12, 7).Subset(seq(300, 600))
	m := fitBlobs(t, DiscriminativeMixture{Seed: 3}, train)
	if len(m.Validation) < 5 {
		t.Errorf("validation table has %d entries", len(m.Validation))
	}
	g, h, k := m.Dims()
	if h != 4 || k != 3 || g < 3 {
		t.Errorf("dims G=%d H=%d K=%d", g, h, k)
	}
	wrong := misclassified(t, m, test)
	// Class means 12 units apart with unit noise: the Bayes error is essentially 0.
	if wrong > 3 {
		t.Errorf("%d of 300 fresh rows misclassified", wrong)
	}
	again := fitBlobs(t, DiscriminativeMixture{Seed: 3}, train)
	a, _ := m.MarshalBinary()
	b, _ := again.MarshalBinary()
	if !bytes.Equal(a, b) {
		t.Error("same seed, different model")
	}
	other := fitBlobs(t, DiscriminativeMixture{Seed: 4}, train)
	c, _ := other.MarshalBinary()
	if bytes.Equal(a, c) {
		t.Error("different seeds gave identical models (is the seed used?)")
	}
}

// TestFitKFold: with ValidationFolds the candidates are scored by k-fold cross-validation. On
// well-separated blobs the chosen mixture classifies fresh rows as well as the one-split choice,
// the result does not depend on anything but the seed, and the folds hold out every row of a
// class with more than one row exactly once, in folds whose sizes differ by at most one.
func TestFitKFold(t *testing.T) {
	train := blobs(300, 4, 3, 12, 7)
	test := blobs(600, 4, 3, 12, 7).Subset(seq(300, 600))
	dm := DiscriminativeMixture{Seed: 3, ValidationFolds: 5}
	m := fitBlobs(t, dm, train)
	if len(m.Validation) < 5 {
		t.Errorf("validation table has %d entries", len(m.Validation))
	}
	one := fitBlobs(t, DiscriminativeMixture{Seed: 3}, train)
	// Five fits per candidate, each of at least one L-BFGS iteration.
	if m.Validation[0].Iterations < 5 || m.Validation[0].Iterations <= one.Validation[0].Iterations {
		t.Errorf("5-fold candidate took %d iterations, one split %d: are the folds fitted?", m.Validation[0].Iterations, one.Validation[0].Iterations)
	}
	// As TestFitSeparable: the Bayes error of these blobs is essentially 0.
	if wrong := misclassified(t, m, test); wrong > 3 {
		t.Errorf("%d of 300 fresh rows misclassified", wrong)
	}
	again := fitBlobs(t, dm, train)
	a, _ := m.MarshalBinary()
	b, _ := again.MarshalBinary()
	if !bytes.Equal(a, b) {
		t.Error("same seed, different model")
	}

	// The folds themselves: 3 classes of 7, 5 and 1 rows into 4 folds.
	td := &trainingData{h: 1, k: 3}
	for c, n := range []int{7, 5, 1} {
		for range n {
			td.x = append(td.x, 0)
			td.labels = append(td.labels, c)
		}
	}
	tr, held := kfold(td, rand.New(rand.NewPCG(1, 2)), 4)
	seen := make([]int, td.n())
	lo, hi := td.n(), 0
	for f := range held {
		lo, hi = min(lo, len(held[f])), max(hi, len(held[f]))
		if len(tr[f])+len(held[f]) != td.n() {
			t.Errorf("fold %d: %d training + %d held-out rows of %d", f, len(tr[f]), len(held[f]), td.n())
		}
		for _, i := range held[f] {
			seen[i]++
		}
	}
	for i, c := range seen {
		want := 1
		if td.labels[i] == 2 { // the class of one row stays in every training part
			want = 0
		}
		if c != want {
			t.Errorf("row %d (class %d) held out %d times, want %d", i, td.labels[i], c, want)
		}
	}
	if hi-lo > 1 {
		t.Errorf("fold sizes %d…%d differ by more than one", lo, hi)
	}
}

func seq(lo, hi int) []int {
	s := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

// TestUnlabelledRowsIgnored: rows labelled −1 change nothing.
func TestUnlabelledRowsIgnored(t *testing.T) {
	d := blobs(120, 3, 3, 6, 2)
	dm := DiscriminativeMixture{Gaussians: 6, Width: 1.5, Seed: 1}
	m1 := fitBlobs(t, dm, d)
	// Interleave 40 unlabelled rows of garbage.
	n := d.Len()
	x := mat.NewDense(n+40, 3, nil)
	labels := make([]int, 0, n+40)
	rng := rand.New(rand.NewPCG(1, 1))
	r := 0
	for i := 0; i < n; i++ {
		if i%3 == 0 && r < n+40 {
			x.SetRow(r, []float64{100 * rng.NormFloat64(), 50, -50})
			labels = append(labels, -1)
			r++
		}
		x.SetRow(r, d.X.RawRowView(i))
		labels = append(labels, d.Labels[i])
		r++
	}
	x = x.Slice(0, r, 0, 3).(*mat.Dense)
	m2 := fitBlobs(t, dm, &dataset.Set{X: x, Labels: labels, ClassNames: d.ClassNames})
	a, _ := m1.MarshalBinary()
	b, _ := m2.MarshalBinary()
	if !bytes.Equal(a, b) {
		t.Error("unlabelled rows changed the fit")
	}
}

func TestFitErrors(t *testing.T) {
	good := blobs(60, 2, 3, 5, 1)
	one := blobs(60, 2, 3, 5, 1)
	one.Labels = make([]int, 60) // all class 0
	none := blobs(60, 2, 3, 5, 1)
	none.Labels = nil
	unknown := blobs(60, 2, 3, 5, 1)
	unknown.Labels = slices.Repeat([]int{-1}, 60)
	nan := blobs(60, 2, 3, 5, 1)
	nan.X.Set(4, 1, math.NaN())
	for _, tc := range []struct {
		name string
		dm   DiscriminativeMixture
		d    *dataset.Set
	}{
		{"nil set", DiscriminativeMixture{}, nil},
		{"no labels", DiscriminativeMixture{}, none},
		{"single class", DiscriminativeMixture{}, one},
		{"all unknown", DiscriminativeMixture{}, unknown},
		{"NaN", DiscriminativeMixture{}, nan},
		{"negative G", DiscriminativeMixture{Gaussians: -1}, good},
		{"G > rows", DiscriminativeMixture{Gaussians: 61, Width: 1}, good},
		{"negative width", DiscriminativeMixture{Width: -1}, good},
		{"validation fraction", DiscriminativeMixture{ValidationFraction: 0.9}, good},
		{"iterations", DiscriminativeMixture{MaxIterations: -3}, good},
		{"precision", DiscriminativeMixture{LogitPrecision: math.Inf(1)}, good},
		{"negative folds", DiscriminativeMixture{ValidationFolds: -2}, good},
		{"folds > rows", DiscriminativeMixture{ValidationFolds: 61}, good},
	} {
		_, err := tc.dm.Fit(context.Background(), tc.d)
		if !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: error %v does not wrap ErrInvalid", tc.name, err)
		}
	}
}

func TestFitCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := DiscriminativeMixture{}.Fit(ctx, blobs(200, 3, 3, 5, 1))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestProgress(t *testing.T) {
	var calls, last, total int
	dm := DiscriminativeMixture{Seed: 1, Progress: func(stage string, done, tot int) {
		if stage != "dgmm" || done > tot || done < last {
			t.Errorf("progress (%q, %d, %d) after %d", stage, done, tot, last)
		}
		calls++
		last, total = done, tot
	}}
	fitBlobs(t, dm, blobs(150, 3, 3, 5, 1))
	if calls < 5 || last != total {
		t.Errorf("%d progress calls, last %d/%d", calls, last, total)
	}
}

func TestModelRoundTrip(t *testing.T) {
	m := fitBlobs(t, DiscriminativeMixture{Seed: 2}, blobs(150, 3, 3, 5, 1))
	var buf bytes.Buffer
	if err := modelio.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	got, err := modelio.Decode(bytes.NewReader(buf.Bytes()), "test")
	if err != nil {
		t.Fatal(err)
	}
	m2, ok := got.(*Mixture)
	if !ok {
		t.Fatalf("decoded %T", got)
	}
	if !mat.Equal(m.Centers, m2.Centers) || !mat.Equal(m.Gamma, m2.Gamma) || m.Width != m2.Width ||
		!slices.Equal(m.ClassNames, m2.ClassNames) || !slices.Equal(m.Validation, m2.Validation) {
		t.Error("round trip changed the model")
	}
	if _, err := decodeMixture(1, buf.Bytes()[:10]); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("truncated payload: %v", err)
	}
}

// FuzzDecodeMixture: the dgmm payload decoder never panics, fails only with ErrInvalid, and
// what it accepts re-encodes to the same bytes and yields finite posteriors.
func FuzzDecodeMixture(f *testing.F) {
	m := randomMixture(3, 2, 2, 1, 0.8, 1)
	m.ClassNames = []string{"a", "b"}
	m.Validation = []Candidate{{Gaussians: 3, Width: 0.8, LogLikelihood: -0.5, Error: 0.1, Iterations: 7}}
	p, err := m.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	m.ClassNames, m.Validation = nil, nil
	p2, _ := m.MarshalBinary()
	modeliotest.FuzzPayload(f, decodeMixture, dgmmVersion, func(t *testing.T, got any) {
		mm := got.(*Mixture)
		g, h, k := mm.Dims()
		if g*h*k > 1<<12 {
			return
		}
		// Three probes: the origin, the first centre, and a point whose squared distance to
		// every centre overflows. Each posterior row must be finite, in [0, 1] and sum to 1.
		x := mat.NewDense(3, h, nil)
		for j := range h {
			x.Set(1, j, mm.Centers.At(0, j))
			x.Set(2, j, 1e300)
		}
		var post mat.Dense
		if err := mm.Posteriors(&post, x); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			row, sum := post.RawRowView(i), 0.0
			for _, v := range row {
				if !(v >= 0 && v <= 1+1e-12) {
					t.Fatalf("probe %d: posterior %v", i, row)
				}
				sum += v
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Fatalf("probe %d: posteriors %v sum to %v", i, row, sum)
			}
		}
	}, p, p2)
}

// TestReliabilityMixtureNaN: issue 18's FuzzDecodeMixture find. Model files whose centres are
// so far apart that every squared distance overflows (±1e200), or whose width's 1/2s²
// overflows (s = 1e-160), decoded fine and then gave NaN posteriors; the posteriors are now
// those of the nearest centre. The payloads are the ones kept in testdata/fuzz.
func TestReliabilityMixtureNaN(t *testing.T) {
	for _, c := range []struct {
		m *Mixture
		x []float64 // a point nearer the first centre (at 5e199 both squared distances overflow)
	}{
		{&Mixture{Centers: mat.NewDense(2, 2, []float64{1e200, 0, -1e200, 0}), Gamma: mat.NewDense(2, 2, []float64{0, 1, 1, 0}), Width: 1}, []float64{5e199, 0}},
		{&Mixture{Centers: mat.NewDense(2, 2, []float64{1, 0, -1, 0}), Gamma: mat.NewDense(2, 2, []float64{0, 1, 1, 0}), Width: 1e-160}, []float64{0.5, 0}},
	} {
		m := c.m
		p, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeMixture(dgmmVersion, p)
		if err != nil {
			t.Fatal(err)
		}
		// At x the first centre is infinitely nearer, so p̂(·|x) = β_·0 = softmax(0, 1) (column 0 of Gamma).
		var post mat.Dense
		if err := got.(*Mixture).Posteriors(&post, mat.NewDense(1, 2, c.x)); err != nil {
			t.Fatal(err)
		}
		want := 1 / (1 + math.E)
		if row := post.RawRowView(0); !(math.Abs(row[0]-want) <= 1e-12 && math.Abs(row[1]-(1-want)) <= 1e-12) { // NaN fails
			t.Errorf("width %g, centres %v: posteriors %v, want [%v %v]", m.Width, m.Centers.RawMatrix().Data, row, want, 1-want)
		}
	}
}
