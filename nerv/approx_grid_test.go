package nerv

import (
	"context"
	"math"
	"testing"
)

// testGrid builds the grid evaluator on testApprox's points and graph.
func testGrid(t *testing.T, n, gk int, lambda float64, levels int) (*gridNeRV, []float64) {
	t.Helper()
	a, y := testApprox(t, n, 2, gk, lambda, false, 0)
	g, err := newGridNeRV(context.Background(), randDense(n, 5, 1), a.sp, lambda, true, 5, levels, 2)
	if err != nil {
		t.Fatal(err)
	}
	return g, y
}

// With the complete graph and every row at its own bandwidth the grid path's model is exact
// NeRV: summed directly (no grid) its cost, both divergences and gradient equal the exact path's
// to rounding, which checks the derivation (package documentation, "Gaussian NeRV at scale").
func TestGridDirectEqualsExact(t *testing.T) {
	const n = 40
	for _, lam := range []float64{0, 0.1, 0.5, 1} {
		ev, _ := testEvaluatorN(t, n, 2, lam, false, true, true, 1<<30)
		ev.setSigma(ev.in.final)
		g, y := testGrid(t, n, n-1, lam, n)
		ge := make([]float64, len(y))
		ce, pe, re := ev.eval(y, ge)
		g.isoZ = math.Inf(1)
		ga := make([]float64, len(y))
		ca, pa, ra := g.eval(y, ga, 1)
		for _, v := range [][2]float64{{ce, ca}, {pe, pa}, {re, ra}} {
			if math.Abs(v[0]-v[1]) > 1e-10*math.Abs(v[0]) {
				t.Errorf("λ = %g: cost terms: exact %v, grid path summed directly %v", lam, []float64{ce, pe, re}, []float64{ca, pa, ra})
			}
		}
		if r := relErr(ga, ge); r > 1e-9 {
			t.Errorf("λ = %g: gradient relative error %g", lam, r)
		}
	}
}

// On a sparse graph with three bandwidth levels the grid sums converge to the direct sums of
// the same model as the grid is refined: the error falls about 2^p-fold (p = 4) per halving of
// the spacing, and at γ = 0.1 the cost terms agree to 1e-4 and the gradient to 5e-3 (measured
// 1.7e-3 on these points, whose random layout leaves some rows nearly isolated).
func TestGridConvergesToDirect(t *testing.T) {
	const n = 60
	for _, lam := range []float64{0.1, 1} {
		g, y := testGrid(t, n, 12, lam, 3)
		g.isoZ = math.Inf(1)
		gd := make([]float64, len(y))
		cd, pd, rd := g.eval(y, gd, 1)
		g.isoZ = gridIsolated
		prev := math.Inf(1)
		for _, gamma := range []float64{0.4, 0.2, 0.1} {
			g.gamma = gamma
			ga := make([]float64, len(y))
			ca, pa, ra := g.eval(y, ga, 1)
			r := relErr(ga, gd)
			t.Logf("λ=%g γ=%g: cost %.10g/%.10g prec %.10g/%.10g rec %.10g/%.10g grad err %.3g isolated %d", lam, gamma, ca, cd, pa, pd, ra, rd, r, g.isolated)
			if gamma == 0.1 {
				for _, v := range [][2]float64{{cd, ca}, {pd, pa}, {rd, ra}} {
					if math.Abs(v[0]-v[1]) > 1e-4*math.Abs(v[0]) {
						t.Errorf("λ = %g: cost terms: direct %v, grid %v", lam, []float64{cd, pd, rd}, []float64{ca, pa, ra})
					}
				}
				if r > 5e-3 {
					t.Errorf("λ = %g: gradient relative error %g", lam, r)
				}
			}
			if r > prev {
				t.Errorf("λ = %g: refining the grid to γ = %g raised the gradient's error from %g to %g", lam, gamma, prev, r)
			}
			prev = r
		}
	}
}
