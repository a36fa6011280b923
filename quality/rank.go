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

// row returns the rank-based KL(q‖p) and KL(p‖q) of row i. Only points among the r0 nearest in
// either space contribute: beyond that both distributions hold the same clamped value.
func (rb *rankBase) row(wk *worker, i int, dx, dy []float64) (prec, rec float64) {
	rb.top(wk, i, dx, wk.inTop, wk.rx)
	rb.top(wk, i, dy, wk.outTop, wk.ry)
	for _, j := range wk.inTop {
		p, q := rb.add(wk.rx[j], wk.ry[j])
		prec += p
		rec += q
	}
	for _, j := range wk.outTop {
		if wk.rx[j] == 0 { // not counted yet
			p, q := rb.add(0, wk.ry[j])
			prec += p
			rec += q
		}
	}
	for _, j := range wk.inTop {
		wk.rx[j] = 0
	}
	for _, j := range wk.outTop {
		wk.ry[j] = 0
	}
	return prec, rec
}

// top puts the r0 nearest points of row i (by distance, then index) into dst and records their
// ranks 1..r0 in rank.
func (rb *rankBase) top(wk *worker, i int, d []float64, dst, rank []int32) {
	wk.heap.Reset(rb.r0)
	for j, v := range d {
		if j != i {
			wk.heap.Push(v, int32(j))
		}
	}
	wk.heap.Sorted(wk.topIdx, wk.topD)
	copy(dst, wk.topIdx)
	for m, j := range dst {
		rank[j] = int32(m + 1)
	}
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
