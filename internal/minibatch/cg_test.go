package minibatch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	"gonum.org/v1/gonum/optimize/functions"
)

// TestCGLowersRosenbrock: from the classical start (−1.2, 1) of Rosenbrock's function
// (f = 24.2 there, minimum 0 at (1, 1)), three CG iterations lower the cost, Minimize reports
// the start's cost, and no point is evaluated twice in a row (the cache) nor more than the
// 6·iters evaluations allowed (+ the start).
func TestCGLowersRosenbrock(t *testing.T) {
	var f functions.ExtendedRosenbrock
	var c CG
	x := []float64{-1.2, 1}
	calls := 0
	var last []float64
	eval := func(x, g []float64) float64 {
		calls++
		if slices.Equal(x, last) {
			t.Errorf("evaluated %v twice in a row", x)
		}
		last = append(last[:0], x...)
		f.Grad(g, x)
		return f.Func(x)
	}
	f0 := c.Minimize(x, eval, 3)
	if math.Abs(f0-24.2) > 1e-12 {
		t.Errorf("Minimize returned %v, want the start's cost 24.2", f0)
	}
	if got := f.Func(x); !(got < f0) {
		t.Errorf("cost %v at %v after 3 iterations, not below the start's %v", got, x, f0)
	}
	if calls > 6*3+1 {
		t.Errorf("%d evaluations for 3 iterations, at most 19 allowed", calls)
	}
	// Again from the new point, with the same CG value: the cache starts over (a new batch is a
	// new cost), so the start is evaluated afresh.
	last = nil
	before := f.Func(x)
	if f1 := c.Minimize(x, eval, 3); f1 != before || !(f.Func(x) < before) {
		t.Errorf("second batch: returned %v (want %v), cost now %v", f1, before, f.Func(x))
	}
}

// TestCGKeepsStartWhenCostRises: a cost that drifts upward with every evaluation (as a
// mini-batch cost can look to a line search when it is noisy) and one that is NaN away from the
// start leave x where it was, and Minimize still returns the start's cost.
func TestCGKeepsStartWhenCostRises(t *testing.T) {
	for name, eval := range map[string]func() func(x, g []float64) float64{
		"drift": func() func(x, g []float64) float64 {
			calls := 0.0
			return func(x, g []float64) float64 {
				calls++
				for i, v := range x {
					g[i] = 2 * v
				}
				return x[0]*x[0] + x[1]*x[1] + 100*calls
			}
		},
		"NaN": func() func(x, g []float64) float64 {
			return func(x, g []float64) float64 {
				for i, v := range x {
					g[i] = 2 * v
				}
				if x[0] != 3 || x[1] != -4 {
					return math.NaN()
				}
				return 25
			}
		},
	} {
		var c CG
		x := []float64{3, -4}
		f0 := c.Minimize(x, eval(), 3)
		if x[0] != 3 || x[1] != -4 {
			t.Errorf("%s: x moved to %v", name, x)
		}
		if want := map[string]float64{"drift": 125, "NaN": 25}[name]; f0 != want {
			t.Errorf("%s: returned %v, want %v", name, f0, want)
		}
	}
}

// gonumCG is what Minimize replaced: optimize.Minimize running optimize.CG at its defaults,
// every point's cost and gradient cached so that gonum's separate Func and Grad calls make one
// evaluation, x moved to gonum's result if its cost is no greater than the start's. It is the
// reference TestCGMatchesGonum holds Minimize to, bit for bit.
func gonumCG(x []float64, eval func(x, grad []float64) float64, iters int) float64 {
	at, grad := make([]float64, len(x)), make([]float64, len(x))
	var f float64
	valid := false
	evalAt := func(x []float64) {
		// Bits, not ==: a point with a NaN in it is the same point to a Func and Grad pair.
		if valid && slices.EqualFunc(x, at, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
			return
		}
		f = eval(x, grad)
		copy(at, x)
		valid = true
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { evalAt(x); return f },
		Grad: func(g, x []float64) { evalAt(x); copy(g, grad) },
	}
	evalAt(x)
	f0 := f
	settings := &optimize.Settings{MajorIterations: iters, FuncEvaluations: 6 * iters, Converger: optimize.NeverTerminate{}}
	res, _ := optimize.Minimize(prob, x, settings, &optimize.CG{})
	// gonum reports a start it cannot use as F = +Inf at X = 0, which a start cost of +Inf would
	// accept: Minimize leaves x alone then.
	if res != nil && !math.IsNaN(res.F) && res.F <= f0 && !math.IsInf(f0, 1) {
		copy(x, res.X)
	}
	return f0
}

// TestCGMatchesGonum: Minimize ends at the bits optimize.Minimize with optimize.CG ends at,
// returns the same start cost and makes as many evaluations, for 1–8 iterations, on gonum's
// test functions (More, Garbow and Hillstrom 1981) from their standard starts and from random
// ones. Between them these end batches every way gonum can: at the iteration limit, at the
// cap of 6·iters evaluations (Brown's badly scaled function from (1, 1) reaches it in 3
// iterations), on a failed line search and on a vanished gradient (Sphere from a point where
// the first step lands at the minimum); and they take both of CG's restarts within a batch,
// on reversed gradients (one-dimensional costs whose first line search overshoots) and on an
// uphill Hestenes–Stiefel direction (a 2-D cost made for it, uphillHS). A cost that is NaN off the start
// and one that drifts upward with every evaluation are included.
func TestCGMatchesGonum(t *testing.T) {
	type problem interface {
		Func(x []float64) float64
		Grad(g, x []float64)
	}
	type start struct {
		name string
		fn   problem
		x0   []float64
	}
	starts := []start{
		{"Brown badly scaled", functions.BrownBadlyScaled{}, []float64{1, 1}},
		{"Powell badly scaled", functions.PowellBadlyScaled{}, []float64{0, 1}},
		{"Beale", functions.Beale{}, []float64{1, 1}},
		{"Helical valley", functions.HelicalValley{}, []float64{-1, 0, 0}},
		{"Wood", functions.Wood{}, []float64{-3, -1, -3, -1}},
		{"Powell singular", functions.ExtendedPowellSingular{}, []float64{3, -1, 0, 1}},
		{"Watson", functions.Watson{}, make([]float64, 6)},
		{"Biggs EXP6", functions.BiggsEXP6{}, []float64{1, 2, 1, 1, 1, 1}},
		{"Penalty II", functions.PenaltyII{}, []float64{0.5, 0.5, 0.5, 0.5}},
		{"Trigonometric", functions.Trigonometric{}, []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}},
		{"Sphere", functions.Sphere{}, []float64{0.5, 0.5}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{2, 20, 200} {
		for range 4 {
			x0 := make([]float64, dim)
			for i := range x0 {
				x0[i] = 2*rng.Float64() - 1
			}
			starts = append(starts, start{fmt.Sprintf("Rosenbrock %d-D", dim), functions.ExtendedRosenbrock{}, x0})
			starts = append(starts, start{fmt.Sprintf("Variably dimensioned %d-D", dim), functions.VariablyDimensioned{}, slices.Clone(x0)})
		}
	}
	type evaluator struct {
		name string
		x0   []float64
		ev   func() func(x, g []float64) float64 // a fresh cost for each run
	}
	var evals []evaluator
	for _, s := range starts {
		evals = append(evals, evaluator{s.name, s.x0, func() func(x, g []float64) float64 {
			return func(x, g []float64) float64 {
				s.fn.Grad(g, x)
				return s.fn.Func(x)
			}
		}})
	}
	quad := func(x, g []float64) float64 {
		for i, v := range x {
			g[i] = 2 * v
		}
		return floats.Dot(x, x)
	}
	for _, fn := range []problem{functions.Wood{}, functions.Trigonometric{}, functions.HelicalValley{}, functions.Beale{}, functions.BrownAndDennis{}} {
		dim := map[string]int{"Wood": 4, "Trigonometric": 10, "HelicalValley": 3, "Beale": 2, "BrownAndDennis": 4}[fmt.Sprintf("%T", fn)[len("functions."):]]
		for range 8 {
			x0 := make([]float64, dim)
			for i := range x0 {
				x0[i] = 4*rng.Float64() - 2
			}
			evals = append(evals, evaluator{fmt.Sprintf("%T", fn), x0, func() func(x, g []float64) float64 {
				return func(x, g []float64) float64 {
					fn.Grad(g, x)
					return fn.Func(x)
				}
			}})
		}
	}
	evals = append(evals, evaluator{"NaN off the start", []float64{3, -4}, func() func(x, g []float64) float64 {
		return func(x, g []float64) float64 {
			f := quad(x, g)
			if x[0] != 3 || x[1] != -4 {
				return math.NaN()
			}
			return f
		}
	}}, evaluator{"drifting upward", []float64{3, -4}, func() func(x, g []float64) float64 {
		calls := 0.0
		return func(x, g []float64) float64 {
			calls++
			return quad(x, g) + 100*calls
		}
	}})
	for _, e := range []struct {
		name string
		x0   []float64
		f    func(x, g []float64) float64
	}{
		{"NaN at the start", []float64{1, 2}, func(x, g []float64) float64 { quad(x, g); return math.NaN() }},
		{"+Inf at the start", []float64{1, 2}, func(x, g []float64) float64 { quad(x, g); return math.Inf(1) }},
		{"−Inf at the start", []float64{1, 2}, func(x, g []float64) float64 { quad(x, g); return math.Inf(-1) }},
		{"infinite gradient at the start", []float64{1, 2}, func(x, g []float64) float64 { f := quad(x, g); g[1] = math.Inf(1); return f }},
		// A step of 1 along a gradient of 2·10⁻²⁰ does not move 10¹⁰: no progress.
		{"no progress", []float64{1e10, 1e10}, func(x, g []float64) float64 {
			for i, v := range x {
				g[i] = 2e-30 * v
			}
			return 1e-30 * floats.Dot(x, x)
		}},
		// A gradient that points uphill: every trial raises the cost and the search fails.
		{"gradient of the wrong sign", []float64{1, 2}, func(x, g []float64) float64 { f := quad(x, g); floats.Scale(-1, g); return f }},
		// ‖x‖₁ has no curvature for the line search to find.
		{"l1 norm", []float64{0.3, -0.7, 1.1}, func(x, g []float64) float64 {
			for i, v := range x {
				g[i] = math.Copysign(1, v)
			}
			return floats.Norm(x, 1)
		}},
	} {
		evals = append(evals, evaluator{e.name, e.x0, func() func(x, g []float64) float64 { return e.f }})
	}
	// In one dimension successive gradients are parallel or opposite. From these starts the
	// first line search overshoots the minimum at 0, so the next direction meets gradients at
	// cos = −1 and restarts on gonum's reversal rule (cos ≤ −0.9): checked here, where the
	// random starts above reach that rule only by chance. The restart on an uphill
	// Hestenes–Stiefel direction, which no smooth test function here reaches, has a cost of its
	// own (uphillHS).
	reversing := []evaluator{
		{"quartic x⁴/4 + x²/2, 1-D", []float64{2.5}, func() func(x, g []float64) float64 {
			return func(x, g []float64) float64 {
				g[0] = x[0]*x[0]*x[0] + x[0]
				return x[0]*x[0]*x[0]*x[0]/4 + x[0]*x[0]/2
			}
		}},
		{"cosh, 1-D", []float64{1.25}, func() func(x, g []float64) float64 {
			return func(x, g []float64) float64 { g[0] = math.Sinh(x[0]); return math.Cosh(x[0]) }
		}},
	}
	for _, e := range reversing {
		var c CG
		x := slices.Clone(e.x0)
		ev := e.ev()
		c.Minimize(x, ev, 2) // one line search
		var g0, g1 [1]float64
		ev(e.x0, g0[:])
		ev(x, g1[:])
		if g0[0]*g1[0] >= 0 {
			t.Errorf("%s from %v: the first line search ends at %v, gradient %v: not past the minimum, so the reversal rule is not reached", e.name, e.x0[0], x[0], g1[0])
		}
	}
	evals = append(evals, reversing...)
	uphill := uphillHS(t)
	evals = append(evals, evaluator{"uphill Hestenes–Stiefel direction, 2-D", []float64{0, 0}, func() func(x, g []float64) float64 { return uphill }})
	// counted counts the evaluations at a point other than the last one's. Where a direction
	// holds a NaN every trial point is the same all-NaN point, which the reference's cache does
	// not evaluate again and Minimize does (at the same cost and gradient, so to the same end).
	counted := func(n *int, ev func(x, g []float64) float64) func(x, g []float64) float64 {
		var last []float64
		return func(x, g []float64) float64 {
			if !slices.EqualFunc(x, last, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
				*n++
				last = append(last[:0], x...)
			}
			return ev(x, g)
		}
	}
	var c CG // one value for every run, as a trainer keeps it across batches and sizes
	for _, e := range evals {
		for iters := 1; iters <= 8; iters++ {
			var nNew, nOld int
			xNew, xOld := slices.Clone(e.x0), slices.Clone(e.x0)
			fNew := c.Minimize(xNew, counted(&nNew, e.ev()), iters)
			fOld := gonumCG(xOld, counted(&nOld, e.ev()), iters)
			same := math.Float64bits(fNew) == math.Float64bits(fOld)
			for i := range xNew {
				same = same && math.Float64bits(xNew[i]) == math.Float64bits(xOld[i])
			}
			if !same || nNew != nOld {
				t.Errorf("%s from %.3g…, %d iterations: start cost %v, x %.17g… in %d evaluations; gonum %v, %.17g… in %d",
					e.name, e.x0[0], iters, fNew, xNew[0], nNew, fOld, xOld[0], nOld)
			}
		}
	}
}

// TestCGMatchesGonumLarge: on 2¹⁶ parameters, past the size where the element-wise passes split
// over two goroutines, Minimize still ends at gonum's bits, on the extended Rosenbrock function
// from a random start.
func TestCGMatchesGonumLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x0 := make([]float64, 1<<16)
	for i := range x0 {
		x0[i] = 2*rng.Float64() - 1
	}
	var fn functions.ExtendedRosenbrock
	eval := func(x, g []float64) float64 { fn.Grad(g, x); return fn.Func(x) }
	var c CG
	for iters := 1; iters <= 4; iters++ {
		xNew, xOld := slices.Clone(x0), slices.Clone(x0)
		c.Minimize(xNew, eval, iters)
		gonumCG(xOld, eval, iters)
		if !slices.Equal(xNew, xOld) {
			t.Errorf("%d iterations: x differs from gonum's", iters)
		}
		if iters > 1 && slices.Equal(xNew, x0) {
			t.Errorf("%d iterations: x did not move", iters)
		}
	}
}

// TestMaxAbs: maxAbs gives floats.Norm(x, ∞)'s bits on short and long vectors, with zeros of
// both signs, infinities and a NaN anywhere.
func TestMaxAbs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 3, 4, 5, 9, 1 << 15, 1<<15 + 3} {
		for trial := range 6 {
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.NormFloat64() * math.Exp(10*rng.NormFloat64())
			}
			if n > 0 {
				switch trial {
				case 1:
					x[rng.IntN(n)] = math.Inf(-1)
				case 2:
					x[rng.IntN(n)] = math.NaN()
				case 3:
					x[n-1] = math.NaN()
				case 4:
					for i := range x {
						x[i] = math.Copysign(0, float64(i%2)-0.5)
					}
				}
			}
			got, want := maxAbs(x), floats.Norm(x, math.Inf(1))
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("n = %d, trial %d: maxAbs %v, floats.Norm %v", n, trial, got, want)
			}
		}
	}
}

// BenchmarkCG times one batch's Minimize (3 iterations) on deep-AE's 3,342,586 parameters
// (784–500–500–2000–2 and back) against optimize.Minimize's path (gonumCG), on a cost cheap
// enough (a scaled quadratic, one pass) that what is timed is the optimiser's own work.
func BenchmarkCG(b *testing.B) {
	const n = 3342586
	rng := rand.New(rand.NewPCG(9, 10))
	x0, scale := make([]float64, n), make([]float64, n)
	for i := range x0 {
		x0[i], scale[i] = rng.NormFloat64(), 0.5+rng.Float64()
	}
	eval := func(x, g []float64) float64 {
		f := 0.0
		for i, v := range x {
			g[i] = scale[i] * v
			f += 0.5 * scale[i] * v * v
		}
		return f
	}
	var c CG
	for _, run := range []struct {
		name string
		min  func(x []float64) float64
	}{
		{"lowdim", func(x []float64) float64 { return c.Minimize(x, eval, 3) }},
		{"gonum", func(x []float64) float64 { return gonumCG(x, eval, 3) }},
	} {
		b.Run(run.name, func(b *testing.B) {
			x := slices.Clone(x0)
			for b.Loop() {
				copy(x, x0)
				run.min(x)
			}
		})
	}
}

// uphillHS returns a smooth 2-D cost, started from (0, 0), built so that CG's third direction,
// −g₂ + β·d₁ with β the Hestenes–Stiefel one, points uphill and gonum restarts on −g₂ instead. Strong Wolfe steps
// with curvature factor 0.1 make that rare: it needs β·(g₂·d₁) ≥ ‖g₂‖², so the second search
// must overshoot (g₂·d₁ > 0, at most a tenth of its starting slope) onto a gradient about
// ten times shorter than the one before, without the two gradients turning past cos⁻¹(−0.9);
// and it cannot happen on the first direction, −g₀, where it would need cos² > 1. No start in
// TestCGMatchesGonum reached it, nor 21,000 random 1-D and 2-D starts on smooth functions
// (27 Nov 2026). So the cost is made to order: x₀ = (0, 0), x₁ = (−1, 0) and x₂ = (−2, −1)
// are the points the first steps reach (step 1 along −g₀ = (−1, 0), then step 1 along
// d₁ = −g₁ + β·d₀ = (−1, −1) with β = 1), and near each the cost is fᵢ + gᵢ·(x − xᵢ) with
// f = 0, −0.5, −0.6 and g = (1, 0), (0, 1), (−0.04, −0.05), blended into ½‖x − x₂‖² − 0.6 by
// bumps (1 − ‖x − xᵢ‖²/r²)³ of radius r = 0.3, which are 1 with zero slope at their centres,
// so the cost and gradient there are exactly the designed ones. Each search accepts its
// first trial (f falls, |g·d| ≤ 0.1·|g_start·d|); at x₂ the gradients meet at cos −0.78, and
// β = 0.0541/1.09 gives g₂·(−g₂ + β·d₁) = +3.7·10⁻⁴. The helper checks those numbers and that
// Minimize's third search starts with a unit step along −g₂, which only the restart takes.
func uphillHS(t *testing.T) func(x, g []float64) float64 {
	t.Helper()
	centres := [][2]float64{{0, 0}, {-1, 0}, {-2, -1}}
	fs := []float64{0, -0.5, -0.6}
	gs := [][2]float64{{1, 0}, {0, 1}, {-0.04, -0.05}}
	const r = 0.3
	cost := func(x, g []float64) float64 {
		// Outside the bumps: q = ½‖x − x₂‖² − 0.6.
		dq := [2]float64{x[0] - centres[2][0], x[1] - centres[2][1]}
		q := 0.5*(dq[0]*dq[0]+dq[1]*dq[1]) - 0.6
		f, rest := 0.0, 1.0
		var grad, gRest [2]float64
		for i, c := range centres {
			d := [2]float64{x[0] - c[0], x[1] - c[1]}
			s := (d[0]*d[0] + d[1]*d[1]) / (r * r)
			if s >= 1 {
				continue
			}
			phi := (1 - s) * (1 - s) * (1 - s)
			lin := fs[i] + gs[i][0]*d[0] + gs[i][1]*d[1]
			f += phi * lin
			rest -= phi
			for j := range 2 {
				dphi := -6 * (1 - s) * (1 - s) * d[j] / (r * r)
				grad[j] += phi*gs[i][j] + dphi*lin
				gRest[j] -= dphi
			}
		}
		for j := range 2 {
			g[j] = grad[j] + gRest[j]*q + rest*dq[j]
		}
		return f + rest*q
	}
	// The design's arithmetic: x₂'s gradients turn by less than the reversal rule allows, and
	// the Hestenes–Stiefel direction there is uphill.
	g1, g2, d1 := gs[1], gs[2], [2]float64{-1, -1}
	y := [2]float64{g2[0] - g1[0], g2[1] - g1[1]}
	beta := (g2[0]*y[0] + g2[1]*y[1]) / (d1[0]*y[0] + d1[1]*y[1])
	n1, n2 := math.Hypot(g1[0], g1[1]), math.Hypot(g2[0], g2[1])
	if cos := (g1[0]*g2[0] + g1[1]*g2[1]) / (n1 * n2); cos <= -0.9 {
		t.Fatalf("uphill HS cost: the gradients at x₁ and x₂ meet at cos %.3f, the reversal rule's restart", cos)
	}
	if up := g2[0]*(-g2[0]+beta*d1[0]) + g2[1]*(-g2[1]+beta*d1[1]); up <= 0 {
		t.Fatalf("uphill HS cost: g₂·(−g₂ + β·d₁) = %g with β = %g, a descent direction", up, beta)
	}
	var xs [][]float64
	var c CG
	x := []float64{0, 0}
	c.Minimize(x, func(x, g []float64) float64 { xs = append(xs, slices.Clone(x)); return cost(x, g) }, 4)
	want := []float64{centres[2][0] + 1*-g2[0], centres[2][1] + 1*-g2[1]}
	found := false
	for i, p := range xs {
		found = found || (i > 0 && slices.Equal(xs[i-1], centres[2][:]) && slices.Equal(p, want))
	}
	if !found {
		t.Errorf("uphill HS cost: Minimize evaluated %v, not x₂ = %v and then x₂ − g₂ = %v: the restart on an uphill direction was not taken", xs, centres[2], want)
	}
	return cost
}
