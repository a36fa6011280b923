package nerv

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/lowdim/lowdim/affinity"
	"github.com/lowdim/lowdim/dataset"
)

func randDense(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 17))
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}

// testEvaluator builds an evaluator on n random 5-D points with σ_i calibrated to k_eff = 5, and a
// random 2-D (or dim-D) layout.
func testEvaluator(t *testing.T, n, dim int, lambda float64, student, cache bool, storage int64) (*evaluator, []float64) {
	return testEvaluatorN(t, n, dim, lambda, student, false, cache, storage)
}

func testEvaluatorN(t *testing.T, n, dim int, lambda float64, student, normalise, cache bool, storage int64) (*evaluator, []float64) {
	t.Helper()
	x := randDense(n, 5, 1)
	in, err := newInput(context.Background(), x, nil, storage, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.calibrate(context.Background(), 5, affinity.Exact, 2); err != nil {
		t.Fatal(err)
	}
	ev := newEvaluator(in, dim, lambda, student, normalise, cache, 2)
	t.Cleanup(ev.close)
	// Anneal-like σ: larger than calibrated for half the rows, so the test covers both.
	s2 := make([]float64, n)
	for i, f := range in.final {
		s2[i] = f * (1 + float64(i%2))
	}
	ev.setSigma(s2)
	y := randDense(n, dim, 2).RawMatrix().Data
	return ev, y
}

// The analytic gradients of NeRV (METHODS.md §2) and t-NeRV agree with central finite differences
// of the cost, for several λ including 0 and 1 (SNE, t-SNE), in 2 and 3 dimensions, with cached
// and streamed input probabilities and float32 storage.
func TestGradientFiniteDifferences(t *testing.T) {
	const n = 30
	cases := []struct {
		name    string
		student bool
		lambda  float64
		dim     int
		cache   bool
		budget  int64
		norm    bool
	}{
		{"nerv λ=0", false, 0, 2, true, 1 << 30, false},
		{"nerv λ=0.1", false, 0.1, 2, false, 1 << 30, false},
		{"nerv λ=0.5 3-D", false, 0.5, 3, true, 1 << 30, false},
		{"sne λ=1", false, 1, 2, true, 1 << 30, false},
		{"nerv λ=0.3 float32", false, 0.3, 2, false, 4 * n * n, false},
		{"nerv λ=0.7 features", false, 0.7, 2, false, 1, false},
		{"nerv λ=0.1 normalised", false, 0.1, 2, true, 1 << 30, true},
		{"nerv λ=0.6 normalised 3-D", false, 0.6, 3, false, 1 << 30, true},
		{"tnerv λ=0", true, 0, 2, true, 1 << 30, false},
		{"tnerv λ=0.5 3-D", true, 0.5, 3, true, 1 << 30, false},
		{"tsne λ=1", true, 1, 2, true, 1 << 30, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, y := testEvaluatorN(t, n, c.dim, c.lambda, c.student, c.norm, c.cache, c.budget)
			g := make([]float64, len(y))
			scratch := make([]float64, len(y))
			ev.eval(y, g)
			const h = 1e-5
			var maxErr, maxG float64
			for k := range y {
				orig := y[k]
				y[k] = orig + h
				fp, _, _ := ev.eval(y, scratch)
				y[k] = orig - h
				fm, _, _ := ev.eval(y, scratch)
				y[k] = orig
				fd := (fp - fm) / (2 * h)
				maxErr = math.Max(maxErr, math.Abs(fd-g[k]))
				maxG = math.Max(maxG, math.Abs(g[k]))
			}
			if maxG == 0 {
				t.Fatal("gradient is zero")
			}
			if maxErr > 1e-6*maxG {
				t.Errorf("max |analytic − finite difference| = %.3g (max |g| = %.3g)", maxErr, maxG)
			}
		})
	}
}

// The cost equals the definition computed naively from dense P and Q: NeRV's per-point
// Σ_i [λ KL(p_i‖q_i) + (1−λ) KL(q_i‖p_i)]/n.
func TestCostDefinition(t *testing.T) {
	const n = 25
	for _, lam := range []float64{0, 0.4, 1} {
		ev, y := testEvaluator(t, n, 2, lam, false, false, 1<<30)
		g := make([]float64, len(y))
		cost, prec, rec := ev.eval(y, g)
		var wantP, wantR float64
		buf := make([]float64, n)
		for i := range n {
			d := ev.in.row(i, buf)
			var zp, zq float64
			p, q := make([]float64, n), make([]float64, n)
			for j := range n {
				if j == i {
					continue
				}
				e := math.Pow(y[2*i]-y[2*j], 2) + math.Pow(y[2*i+1]-y[2*j+1], 2)
				p[j] = math.Exp(-d[j] / ev.s2[i])
				q[j] = math.Exp(-e / ev.s2[i])
				zp += p[j]
				zq += q[j]
			}
			for j := range n {
				if j == i {
					continue
				}
				pj, qj := p[j]/zp, q[j]/zq
				wantP += qj * math.Log(qj/pj)
				wantR += pj * math.Log(pj/qj)
			}
		}
		wantP /= n
		wantR /= n
		want := lam*wantR + (1-lam)*wantP
		if math.Abs(cost-want) > 1e-10*math.Abs(want) || math.Abs(prec-wantP) > 1e-10*wantP || math.Abs(rec-wantR) > 1e-10*wantR {
			t.Errorf("λ=%g: cost %.15g prec %.15g rec %.15g, definition %.15g %.15g %.15g", lam, cost, prec, rec, want, wantP, wantR)
		}
	}
}

// One cost-and-gradient evaluation allocates nothing, in every mode.
func TestEvalAllocatesNothing(t *testing.T) {
	// One P, as in package hope's TestNoAllocations: with many, the runtime's per-P caches (the
	// wait records of the workers' hand-offs) can go on allocating while they fill.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, student := range []bool{false, true} {
		for _, cache := range []bool{false, true} {
			ev, y := testEvaluator(t, 200, 2, 0.3, student, cache, 1<<30)
			g := make([]float64, len(y))
			if a := testing.AllocsPerRun(20, func() { ev.eval(y, g) }); a != 0 {
				t.Errorf("student=%v cache=%v: %v allocations per evaluation", student, cache, a)
			}
		}
	}
}

// The result does not depend on the number of workers: the same settings give the same bytes on
// one core and on three.
func TestSameBytesAnyWorkerCount(t *testing.T) {
	d := &dataset.Set{X: randDense(80, 4, 9)}
	var first *mat.Dense
	for _, w := range []int{1, 3} {
		for _, v := range []Variant{Gaussian, StudentT} {
			r, err := Embedder{Variant: v, Perplexity: 10, Iterations: 20, Workers: w}.fit(context.Background(), d)
			if err != nil {
				t.Fatal(err)
			}
			if v == Gaussian {
				if first != nil && !mat.Equal(first, r.Y) {
					t.Errorf("%d workers gave other coordinates than 1", w)
				}
				first = r.Y
			}
		}
	}
}

// A cancelled context stops the fit promptly with the context's error.
func TestCancel(t *testing.T) {
	d := &dataset.Set{X: randDense(400, 5, 3)}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	e := Embedder{Progress: func(string, int, int) {
		if calls++; calls == 3 {
			cancel()
		}
	}}
	_, err := e.Fit(ctx, d)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if calls > 6 {
		t.Errorf("%d progress reports after cancelling at the third", calls-3)
	}
}

// On a lattice every point has 2–4 nearest neighbours at exactly the same distance, so for
// k_eff = 3 the calibrated σ is tiny against them; the input probabilities must still be finite
// (the self weight exp(0) once swamped the rest and the normaliser rounded to 0: cost NaN,
// found on 150 Landsat rows by the reproduce experiments).
func TestLatticeSmallPerplexity(t *testing.T) {
	x := mat.NewDense(49, 2, nil)
	for i := range 49 {
		x.Set(i, 0, float64(i%7))
		x.Set(i, 1, float64(i/7))
	}
	r, err := Embedder{Perplexity: 3, Iterations: 20}.fit(context.Background(), &dataset.Set{X: x})
	if err != nil {
		t.Fatal(err)
	}
	if math.IsNaN(r.Cost) || math.IsInf(r.Cost, 0) {
		t.Fatalf("cost %v", r.Cost)
	}
}

// Seven 2-D points (two of them equal) can be laid out perfectly: the cost falls to rounding
// level during annealing, where gonum's line search once asked for the same point forever.
func TestPerfectLayoutTerminates(t *testing.T) {
	x := mat.NewDense(7, 2, []float64{1, 2, 1, 2, 3, 4, 5, 7, 8, 1, 2, 2, 4, 4})
	r, err := Embedder{Perplexity: 3, Iterations: 5}.fit(context.Background(), &dataset.Set{X: x})
	if err != nil {
		t.Fatal(err)
	}
	if r.Cost > 1e-6 {
		t.Errorf("cost %g, want about 0 for a layout that can be perfect", r.Cost)
	}
}

// Three groups of 30 identical rows with k_eff = 20: more duplicates than the perplexity, so no
// σ_i reaches the wanted entropy. The calibration used to chase it to σ_i² ≈ 1e-308, where
// 1/σ_i² overflowed against the duplicates' zero output distance: the first gradient of the
// final phase was NaN, and gonum's answer to a NaN start — the zero vector — came back as the
// layout, every point at the origin (reproduce pe's SNE on BBC's √KL distances). Now σ_i² is
// finite and on the scale of the gap to the next group, and the groups stay apart.
func TestManyDuplicates(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 120
	x := mat.NewDense(n, 3, nil)
	labels := make([]int, n)
	for i := range n {
		g := i % 4
		labels[i] = g
		for c := range 3 {
			if g < 3 { // groups 0–2: one row repeated; group 3: scattered
				x.Set(i, c, float64(5*g*(c+1)))
			} else {
				x.Set(i, c, 20*rng.Float64())
			}
		}
	}
	for _, lam := range []float64{0.3, 1} {
		r, err := Embedder{Lambda: Lambda(lam), Iterations: 50}.fit(context.Background(), &dataset.Set{X: x})
		if err != nil {
			t.Fatalf("λ = %g: %v", lam, err)
		}
		if math.IsNaN(r.Cost) || math.IsInf(r.Cost, 0) {
			t.Fatalf("λ = %g: cost %v", lam, r.Cost)
		}
		for i, s := range r.Sigma2 {
			if !(s > 1e-6) {
				t.Fatalf("λ = %g: σ²[%d] = %g for a row whose next distinct neighbour is at squared distance ≳ 0.05", lam, i, s)
			}
		}
		// The three duplicate groups' centres are apart by more than a tenth of the layout's size.
		var c [3][2]float64
		for i := range n {
			if g := labels[i]; g < 3 {
				c[g][0] += r.Y.At(i, 0) / 30
				c[g][1] += r.Y.At(i, 1) / 30
			}
		}
		size := 0.0
		for i := range n {
			size = math.Max(size, math.Hypot(r.Y.At(i, 0)-c[0][0], r.Y.At(i, 1)-c[0][1]))
		}
		for a := range 3 {
			for b := a + 1; b < 3; b++ {
				if d := math.Hypot(c[a][0]-c[b][0], c[a][1]-c[b][1]); !(d > 0.1*size) {
					t.Errorf("λ = %g: groups %d and %d at distance %g in a layout of size %g", lam, a, b, d, size)
				}
			}
		}
	}
}

// gonum returns the zero vector when the starting cost or gradient is not finite: neither may
// pass as a benign stop (TestManyDuplicates reached it with a NaN gradient before σ² had a floor).
func TestNonFiniteStartIsNotBenign(t *testing.T) {
	for _, err := range []error{optimize.ErrFunc(math.NaN()), optimize.ErrGrad{Grad: math.NaN(), Index: 3}, optimize.ErrGrad{Grad: math.Inf(1)}} {
		if isBenign(err) {
			t.Errorf("%v passes as benign", err)
		}
	}
	if !isBenign(optimize.ErrNoProgress) {
		t.Errorf("a line search that makes no progress should leave the point found")
	}
}
