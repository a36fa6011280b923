package affinity

import (
	"math"

	"github.com/lowdim/lowdim/internal/blas"
)

// DredvizSearch finds the same σ² as Sigma2(a, perplexity, Dredviz) — dredviz's line search —
// with about a third of the row entropy evaluations, each vectorised through lowdim/internal/blas.
// Reuse one value per goroutine across rows: it remembers the last result as a hint.
//
// The search compares costs |H(σ²) − target|, and where the row is unclamped (min a / σ² <
// MaxExp − SkipExp: every clamped weight is negligible) the entropy H grows with σ². So once one
// such σ² is known to have H above the target, every comparison between two points at or above it
// is decided by their order, and once one is known below the target, a point at or below it never
// has a smaller cost than a larger one; their entropies are never computed. Every computed entropy moves these two bounds. DredvizSearch first evaluates the
// search's opening walk (1, 0.618, 0.382, …) at its point just above the hint, which usually
// sets the upper bound at once. One more comparison needs no entropy: at σ² = DBL_MIN every
// exponent is clamped, every weight is 1 and H = log₂ N, the largest entropy of N weights; when
// log₂ N is at least twice the target, no σ² has a larger cost, so it is never below another.
// All other comparisons use computed entropies, so the result is the search's own (up to the
// rounding of the vectorised exponential on AVX-512 CPUs, and a tie between a
// computed entropy and a bound broken by the bound).
type DredvizSearch struct {
	hint  float64
	memo  []memoEntry
	a     []float64 // the row: a_j·scale for j ≠ self are the squared distances searched
	self  int       // the entry left out (−1: none)
	scale float64
	rmin  float64 // min_{j≠self} a_j (unscaled)
	amin  float64 // rmin·scale
	tgt   float64
	cert  float64 // every unclamped σ² ≥ cert has entropy > target (+Inf: none known)
	low   float64 // every unclamped σ² ≤ low has entropy < target (0: none known)
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
	d.cert, d.low = math.Inf(1), 0
	if d.hint > 0 {
		d.certify(d.hint)
	}
	s2 := math.Max(d.search(), MinSigma2)
	d.hint = s2
	return s2
}

// entropyBits is EntropyBits through blas.ExpSums, and the weighted mean of the shifted
// exponents (0 when every exponent is clamped; a row clamped everywhere needs no pass).
func (d *DredvizSearch) entropyBits(s2 float64) (bits, spread float64) {
	inv := d.scale / s2
	tmin := math.Min(d.rmin*inv, MaxExp)
	if tmin >= MaxExp { // every exponent is clamped: all weights are 1
		z := float64(len(d.a))
		if d.self >= 0 {
			z--
		}
		return (math.Log(z) + 0/z) / math.Ln2, 0
	}
	var z, s float64
	if d.self < 0 {
		z, s = blas.ExpSums(d.a, inv, MaxExp, tmin, SkipExp)
	} else {
		z, s = blas.ExpSums(d.a[:d.self], inv, MaxExp, tmin, SkipExp)
		z2, s2 := blas.ExpSums(d.a[d.self+1:], inv, MaxExp, tmin, SkipExp)
		z, s = z+z2, s+s2
	}
	return (math.Log(z) + s/z) / math.Ln2, s / z
}

// cost returns |H(s2) − target|, computed once per s2. An unclamped s2 whose entropy is clear of
// the target (by 1e-9 bits, far beyond rounding) moves the bounds: low when below it; cert when
// above it and the weights spread (a mean shifted exponent of at least 1e-3: beyond the level
// stretch at small σ² where only the points at the nearest distance count, so that the entropy
// grows strictly from there on).
func (d *DredvizSearch) cost(s2 float64) float64 {
	for _, m := range d.memo {
		if m.s2 == s2 {
			return m.cost
		}
	}
	c := math.MaxFloat64
	if s2 > 0 {
		h, spread := d.entropyBits(s2)
		c = math.Abs(h - d.tgt)
		if d.unclamped(s2) {
			if h > d.tgt+1e-9 && spread >= 1e-3 {
				d.cert = math.Min(d.cert, s2)
			} else if h < d.tgt-1e-9 {
				d.low = math.Max(d.low, s2)
			}
		}
	}
	d.memo = append(d.memo, memoEntry{s2, c})
	return c
}

// unclamped reports whether every clamped exponent at s2 is negligible (below e^−SkipExp of the
// largest weight), where the entropy grows with σ².
func (d *DredvizSearch) unclamped(s2 float64) bool { return d.amin/s2 < MaxExp-SkipExp }

// topCost reports whether s2 clamps every exponent (H = log₂ N, the largest entropy) and log₂ N is
// at least twice the target: then no σ² has a larger cost than s2.
func (d *DredvizSearch) topCost(s2 float64) bool {
	if s2 <= 0 || math.Min(d.rmin*(d.scale/s2), MaxExp) < MaxExp {
		return false
	}
	z := float64(len(d.a))
	if d.self >= 0 {
		z--
	}
	return math.Log2(z) >= 2*d.tgt
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
		if !d.unclamped(s2) {
			return
		}
		if d.cost(s2); d.cert <= s2 {
			return
		}
	}
}

// less reports whether the cost at s2 x is below the cost at s2 y: by their order when both lie
// at or above cert (the cost grows with σ² there); false when x < y ≤ low, both unclamped (the
// cost does not grow with σ² there; the other way round it may stay level, where the nearest
// distance is shared by several points and the others' weights vanish) or when x has the largest
// cost there is; else by computing both.
func (d *DredvizSearch) less(x, y float64) bool {
	switch {
	case x >= d.cert && y >= d.cert:
		return x < y
	case x < y && y <= d.low && d.unclamped(x):
		return false
	case d.topCost(x):
		return false
	}
	return d.cost(x) < d.cost(y)
}

// search is dredviz's search with every comparison of costs made through less.
func (d *DredvizSearch) search() float64 { return goldenSearch(d.less) }
