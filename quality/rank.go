package quality

import (
	"math"

	"lowdim/affinity"
)

// rankBase holds the rank-based neighbour distribution shared by every row (every row holds the
// same ranks 1..n−1, so one σ and one distribution serve all rows).
type rankBase struct {
	n, r0               int       // r0: ranks 1..r0 are unclamped, every later rank has the clamped value
	logBase             []float64 // logBase[r-1] = log p(rank r), r = 1..n−1
	base                []float64
	logClamp, clamp     float64 // the value of every rank beyond r0
	worstPrec, worstRec float64 // KL(p_rev‖p) and KL(p‖p_rev), p_rev(r) = p(n−r)
}

// newRankBase builds dredviz klrank's rank distribution: ranks are divided by their mean n/2,
// p(rank r) ∝ exp(−min((2r/n)²/σ², 450)), σ² calibrated by dredviz's line search (see
// affinity.Sigma2 with affinity.Dredviz) to entropy log₂ k bits.
func newRankBase(n, k int) *rankBase {
	a := make([]float64, n-1)
	scale := 1 / (float64(n) / 2)
	for r := range a {
		v := float64(r+1) * scale
		a[r] = v * v
	}
	inv := 1 / affinity.Sigma2(a, float64(k), affinity.Dredviz)
	rb := &rankBase{n: n, r0: n - 1, logBase: make([]float64, n-1), base: make([]float64, n-1)}
	// The exponents grow with r; a[0] is the smallest and is subtracted before exp.
	tmin := math.Min(a[0]*inv, affinity.MaxExp)
	var z float64
	for r := range a {
		t := math.Min(a[r]*inv, affinity.MaxExp)
		if t >= affinity.MaxExp && rb.r0 == n-1 {
			rb.r0 = r
		}
		rb.logBase[r] = -(t - tmin)
		z += math.Exp(rb.logBase[r])
	}
	lz := math.Log(z)
	for r := range a {
		rb.logBase[r] -= lz
		rb.base[r] = math.Exp(rb.logBase[r])
	}
	rb.logClamp = -(affinity.MaxExp - tmin) - lz
	rb.clamp = math.Exp(rb.logClamp)
	rb.r0 = max(rb.r0, 1)
	// Worst case: the point of input rank r has output rank n−r.
	for r := 1; r <= n-1; r++ {
		p, q := rb.base[r-1], rb.base[n-1-r]
		lp, lq := rb.logBase[r-1], rb.logBase[n-1-r]
		rb.worstRec += p * (lp - lq)
		rb.worstPrec += q * (lq - lp)
	}
	return rb
}

// rowSorted returns the rank-based KL(q‖p) and KL(p‖q) of a row whose r0 nearest points of
// either space are ordered in wk.ox and wk.oy. Only those points contribute: beyond r0 both
// distributions hold the same clamped value.
func (rb *rankBase) rowSorted(wk *worker) (prec, rec float64) {
	r0 := int32(rb.r0)
	clamped := func(r int32) int32 { // 0 (clamped) for unordered points and ranks beyond r0
		if r > r0 {
			return 0
		}
		return r
	}
	for m, j := range wk.ox.ord[:r0] {
		p, q := rb.add(int32(m+1), clamped(wk.oy.rankOf(j)))
		prec += p
		rec += q
	}
	for m, j := range wk.oy.ord[:r0] {
		if clamped(wk.ox.rankOf(j)) == 0 { // not counted yet
			p, q := rb.add(0, int32(m+1))
			prec += p
			rec += q
		}
	}
	return prec, rec
}

// add returns the terms q(log q − log p) and p(log p − log q) of a point with input rank rx and
// output rank ry (0 = beyond r0, the clamped value).
func (rb *rankBase) add(rx, ry int32) (prec, rec float64) {
	p, lp := rb.clamp, rb.logClamp
	if rx != 0 {
		p, lp = rb.base[rx-1], rb.logBase[rx-1]
	}
	q, lq := rb.clamp, rb.logClamp
	if ry != 0 {
		q, lq = rb.base[ry-1], rb.logBase[ry-1]
	}
	return q * (lq - lp), p * (lp - lq)
}
