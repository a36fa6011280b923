package affinity

import (
	"math"

	"lowdim/internal/blas"
)

// DredvizSearch finds the same σ² as Sigma2(a, perplexity, Dredviz) — dredviz's line search —
// with about half the row entropy evaluations, each vectorised through lowdim/internal/blas. Reuse
// one value per goroutine across rows: it remembers the last result as a hint.
//
// The saving comes from the search's opening: from σ² = 1 it walks down by golden sections
// (1, 0.618, 0.382, …) while the entropy stays above the target, and every comparison on that walk
// is decided by the monotonicity of the entropy in σ² alone. DredvizSearch first evaluates the
// walk's point just above the hint; if its entropy exceeds the target (and the row is unclamped
// there, min a / σ² < MaxExp − SkipExp), every comparison between two points at or above it is
// decided by their order, and their entropies are never computed. All other comparisons use
// computed entropies, so the result is the search's own (up to the rounding of the vectorised
// exponential in the -tags openblas build).
type DredvizSearch struct {
	hint  float64
	memo  []memoEntry
	a     []float64 // the row: a_j·scale for j ≠ self are the squared distances searched
	self  int       // the entry left out (−1: none)
	scale float64
	rmin  float64 // min_{j≠self} a_j (unscaled)
	amin  float64 // rmin·scale
	tgt   float64
	cert  float64 // every σ² ≥ cert has entropy > target (+Inf: none certified)
}

type memoEntry struct{ s2, cost float64 }

// Sigma2 returns the calibrated σ² of the row a (the point itself excluded); amin is min_j a_j.
func (d *DredvizSearch) Sigma2(a []float64, amin, perplexity float64) float64 {
	return d.Sigma2Row(a, -1, 1, amin, perplexity)
}

// Sigma2Row is Sigma2 of the row a_j·scale, j ≠ self (self < 0: every j), read in place; rmin is
// min_{j≠self} a_j. The scale is folded into each exponent, min(a_j·(scale/σ²), MaxExp), so the
// caller needs no rescaled copy; with scale = 1 and self < 0 it is Sigma2 exactly.
func (d *DredvizSearch) Sigma2Row(a []float64, self int, scale, rmin, perplexity float64) float64 {
	if self >= len(a) {
		self = -1
	}
	d.a, d.self, d.scale, d.rmin, d.amin, d.tgt = a, self, scale, rmin, rmin*scale, dredvizTarget(perplexity)
	d.memo = d.memo[:0]
	d.cert = math.Inf(1)
	if d.hint > 0 {
		d.certify(d.hint)
	}
	s2 := math.Max(d.search(), MinSigma2)
	d.hint = s2
	return s2
}

// entropyBits is EntropyBits through blas.ExpSums; a row clamped everywhere needs no pass.
func (d *DredvizSearch) entropyBits(s2 float64) float64 {
	inv := d.scale / s2
	tmin := math.Min(d.rmin*inv, MaxExp)
	if tmin >= MaxExp { // every exponent is clamped: all weights are 1
		z := float64(len(d.a))
		if d.self >= 0 {
			z--
		}
		return (math.Log(z) + 0/z) / math.Ln2
	}
	var z, s float64
	if d.self < 0 {
		z, s = blas.ExpSums(d.a, inv, MaxExp, tmin, SkipExp)
	} else {
		z, s = blas.ExpSums(d.a[:d.self], inv, MaxExp, tmin, SkipExp)
		z2, s2 := blas.ExpSums(d.a[d.self+1:], inv, MaxExp, tmin, SkipExp)
		z, s = z+z2, s+s2
	}
	return (math.Log(z) + s/z) / math.Ln2
}

// cost returns |H(s2) − target|, computed once per s2.
func (d *DredvizSearch) cost(s2 float64) float64 {
	for _, m := range d.memo {
		if m.s2 == s2 {
			return m.cost
		}
	}
	c := math.MaxFloat64
	if s2 > 0 {
		c = math.Abs(d.entropyBits(s2) - d.tgt)
	}
	d.memo = append(d.memo, memoEntry{s2, c})
	return c
}

// certify evaluates the golden walk 1, 0.618, … at its last point above 1.5·hint (then upwards
// until one qualifies) and records it as cert when its entropy exceeds the target in the
// unclamped regime.
func (d *DredvizSearch) certify(hint float64) {
	const golden = 0.61803399
	walk := []float64{1}
	for b := 1.0; len(walk) < 40; {
		b = 0 + golden*(b-0) // the search's own arithmetic, so the points coincide exactly
		if b < 1.5*hint {
			break
		}
		walk = append(walk, b)
	}
	for m := len(walk) - 1; m >= 1; m-- {
		s2 := dblMin + walk[m]
		if d.amin/s2 >= MaxExp-SkipExp {
			return
		}
		if h := d.entropyBits(s2); h > d.tgt+1e-9 {
			d.memo = append(d.memo, memoEntry{s2, h - d.tgt})
			d.cert = s2
			return
		}
		d.cost(s2)
	}
}

// less reports whether the cost at s2 x is below the cost at s2 y: by their order when both are
// certified (the cost grows with σ² there), else by computing both.
func (d *DredvizSearch) less(x, y float64) bool {
	if x >= d.cert && y >= d.cert {
		return x < y
	}
	return d.cost(x) < d.cost(y)
}

// search is dredviz's search with every comparison of costs made through less.
func (d *DredvizSearch) search() float64 { return goldenSearch(d.less) }
