package minibatch

import (
	"math"
	"slices"
	"testing"

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
