package affinity

import (
	"math"
	"math/rand/v2"
	"testing"
)

// lazyRows returns rows of several shapes: exponential spreads, concentrated high-dimensional-like
// distances (all within a factor of a few of each other, as on MNIST), clusters with outliers, a
// row with duplicates of the point (zero distances), and tiny rows where the search takes its
// halving branch.
func lazyRows(rng *rand.Rand) [][]float64 {
	var rows [][]float64
	for r := 0; r < 60; r++ {
		n := 50 + rng.IntN(3000)
		a := make([]float64, n)
		scale := math.Exp(rng.NormFloat64() * 1.5)
		for j := range a {
			switch r % 5 {
			case 0:
				a[j] = scale * rng.ExpFloat64()
			case 1: // concentrated: squared norms of 50-dimensional Gaussians, rescaled
				var s float64
				for range 50 {
					v := rng.NormFloat64()
					s += v * v
				}
				a[j] = scale * s / 50
			case 2:
				if j < n/2 {
					a[j] = 1e-3 * scale * rng.Float64()
				} else {
					a[j] = scale * (100 + rng.Float64())
				}
			case 3:
				a[j] = float64(rng.IntN(4)) * scale // many ties, some zero distances
			case 4:
				a[j] = scale * (0.2 + rng.Float64())
			}
		}
		rows = append(rows, a)
	}
	for _, n := range []int{3, 8, 25} {
		a := make([]float64, n)
		for j := range a {
			a[j] = rng.Float64()
		}
		rows = append(rows, a)
	}
	return rows
}

// DredvizSearch returns exactly what Sigma2(…, Dredviz) returns, row after row (so that the hint
// is exercised), for perplexities in both of the search's branches.
func TestDredvizSearchMatchesSigma2(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	rows := lazyRows(rng)
	var d DredvizSearch
	for _, k := range []float64{1.5, 5, 20, 50} {
		for r, a := range rows {
			want := Sigma2(a, k, Dredviz)
			got := d.Sigma2(a, Min(a), k)
			if got != want {
				t.Errorf("row %d (n=%d) k=%g: σ² = %.17g, Sigma2 gives %.17g", r, len(a), k, got, want)
			}
		}
	}
}

// DredvizSearch with a good hint needs far fewer entropies than the search itself: on
// concentrated rows (the MNIST case) at most 7 instead of the 15–17 the search evaluates (9.7 per
// row before the bounds moved with every computed entropy, 5.9 after).
func TestDredvizSearchEvaluations(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	var d DredvizSearch
	total, full := 0, 0
	for r := 0; r < 30; r++ {
		a := make([]float64, 2000)
		for j := range a {
			var s float64
			for range 50 {
				v := rng.NormFloat64()
				s += v * v
			}
			a[j] = s / 50
		}
		evals := 0
		searchSigma2(func(s2 float64) float64 { evals++; return math.Abs(EntropyBits(a, Min(a), s2) - math.Log2(20)) })
		d.Sigma2(a, Min(a), 20)
		if r > 0 {
			total += len(d.memo)
			full += evals
		}
	}
	t.Logf("entropies per row: %.1f (search: %.1f)", float64(total)/29, float64(full)/29)
	if float64(total)/29 > 7 {
		t.Errorf("%.1f entropy evaluations per row, want at most 7", float64(total)/29)
	}
}
