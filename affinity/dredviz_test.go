package affinity

import (
	"math"
	"math/rand/v2"
	"testing"
)

// dredviz's search narrows its bracket to an absolute width of 0.01, so on a unimodal function it
// must land within 0.01 of the minimum, whether that lies below the unit first step (halving
// branch) or above it (doubling branch).
func TestSearchSigma2Unimodal(t *testing.T) {
	for _, m := range []float64{0.003, 0.05, 0.3, 0.77, 1.6, 5.3, 40} {
		evals := 0
		got := searchSigma2(func(s float64) float64 { evals++; return math.Abs(s - m) })
		if math.Abs(got-m) > 0.01 {
			t.Errorf("minimum at %g: search returned %g", m, got)
		}
		if evals > 2+40+40+1 { // start, unit step, ≤ 40 bracketing steps, ≤ 40 golden steps, final
			t.Errorf("minimum at %g: %d evaluations", m, evals)
		}
	}
}

// entropyBits (shifted exponents, negligible weights skipped) agrees with the entropy computed
// straight from dredviz's definition p_j = exp(−min(a_j/σ², 450)) / Σ.
func TestEntropyBitsDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	a := make([]float64, 500)
	amin := math.Inf(1)
	for j := range a {
		a[j] = 0.5 + rng.ExpFloat64()
		amin = math.Min(amin, a[j])
	}
	for _, s2 := range []float64{dblMin, 1e-3, 0.01, 0.1, 1, 10} {
		p := make([]float64, len(a))
		var z float64
		for j, v := range a {
			p[j] = math.Exp(-math.Min(v/s2, MaxExp))
			z += p[j]
		}
		var h float64
		for j := range p {
			h -= p[j] / z * math.Log2(p[j]/z)
		}
		if got := EntropyBits(a, amin, s2); math.Abs(got-h) > 1e-9*math.Max(1, h) {
			t.Errorf("σ² = %g: entropyBits %.15g, definition %.15g", s2, got, h)
		}
	}
}

// The calibrated σ² lies within dredviz's bracket width 0.01 of the exact root of
// H(σ²) = log₂ k (found here by bisection; H grows with σ² on these rows).
func TestCalibrateSigma2NearRoot(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, k := range []int{2, 5, 20, 50} {
		a := make([]float64, 800)
		amin := math.Inf(1)
		for j := range a {
			a[j] = rng.ExpFloat64()
			amin = math.Min(amin, a[j])
		}
		target := math.Log2(float64(k))
		lo, hi := 1e-6, 100.0
		for range 200 {
			mid := (lo + hi) / 2
			if EntropyBits(a, amin, mid) > target {
				hi = mid
			} else {
				lo = mid
			}
		}
		got := Sigma2(a, float64(k), Dredviz)
		if math.Abs(got-lo) > 0.01 {
			t.Errorf("k=%d: σ² = %g, exact root %g", k, got, lo)
		}
	}
}
