package nerv

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/lowdim/lowdim/dataset"
)

// Renumbering only moves rows: on the renumbered graph, at the renumbered layout, the cost of
// t-SNE and t-NeRV is the same and the gradient is the same one renumbered, to rounding (1e-12
// relative), and every row keeps its σ² and its neighbours (by their new numbers).
func TestRenumberMovesRowsOnly(t *testing.T) {
	for _, lambda := range []float64{1, 0.4} {
		a, y := testApprox(t, 700, 2, 15, lambda, true, 0.5)
		a.allTerms = true
		g := make([]float64, len(y))
		c, _, _ := a.eval(y, g, 1)
		order := layoutOrder(y, 2)
		sp := a.sp.renumber(order)
		for m, i := range order {
			if sp.sigma2[m] != a.sp.sigma2[i] {
				t.Fatalf("row %d (was %d): σ² %g, was %g", m, i, sp.sigma2[m], a.sp.sigma2[i])
			}
			if got, want := sp.ptr[m+1]-sp.ptr[m], a.sp.ptr[i+1]-a.sp.ptr[i]; got != want {
				t.Fatalf("row %d (was %d): %d entries, was %d", m, i, got, want)
			}
			for e := sp.ptr[m] + 1; e < sp.ptr[m+1]; e++ {
				if sp.idx[e] <= sp.idx[e-1] {
					t.Fatalf("row %d: columns not increasing", m)
				}
			}
		}
		b := newApprox(sp, 2, lambda, true, 0.5, 2)
		b.allTerms = true
		yr := permuteRows(y, 2, order)
		gr := make([]float64, len(y))
		cr, _, _ := b.eval(yr, gr, 1)
		if math.Abs(cr-c) > 1e-12*math.Abs(c) {
			t.Errorf("λ = %g: cost %.17g renumbered, %.17g before", lambda, cr, c)
		}
		if r := relErr(gr, permuteRows(g, 2, order)); r > 1e-12 {
			t.Errorf("λ = %g: gradient differs by %g (relative) after renumbering", lambda, r)
		}
	}
}

// A t-SNE fit renumbered after early exaggeration is the same fit: the layout, returned in the
// input's row order, equals the unrenumbered one to rounding grown over the iterations (this
// test's log: 9e-14 on a spread of 37.5 after 30 iterations; it asserts 1e-9 of the spread), and
// it is the same bytes for 1, 2 and 3 workers.
func TestRenumberedFit(t *testing.T) {
	d := dataset.Digits().Subset(seq(700))
	fit := func(minRows, workers int) []float64 {
		old := renumberMin
		renumberMin = minRows
		defer func() { renumberMin = old }()
		e := Embedder{Variant: StudentT, Lambda: Lambda(1), Perplexity: 15, Path: PathApprox, Seed: 3, Iterations: 30, ExaggerationIterations: 40, Workers: workers}
		r, err := e.Fit(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		return r.Embedding().RawMatrix().Data
	}
	plain := fit(1<<30, 2)
	ref := fit(0, 1)
	var diff, spread float64
	for k := range ref {
		diff = math.Max(diff, math.Abs(ref[k]-plain[k]))
		spread = math.Max(spread, math.Abs(plain[k]))
	}
	t.Logf("largest difference %.3g of a spread of %.3g", diff, spread)
	if diff > 1e-9*spread {
		t.Errorf("renumbered layout differs from the plain one by %g (spread %g)", diff, spread)
	}
	for _, w := range []int{2, 3} {
		if got := fit(0, w); !slices.Equal(got, ref) {
			t.Errorf("%d workers: a different renumbered layout from 1 worker's", w)
		}
	}
}
