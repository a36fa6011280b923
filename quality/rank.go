package quality

import (
	"math"

	"github.com/lowdim/lowdim/affinity"
)

// rankBase holds the rank-based neighbour distribution shared by every row (every row holds the
// same ranks 1..n−1, so one σ and one distribution serve all rows).
type rankBase struct {
	n, r0               int       // r0: ranks 1..r0 are unclamped, every later rank has the clamped value
	r1                  int       // ranks beyond r1 weigh less than e^−SkipExp of rank 1
	logBase             []float64 // logBase[r-1] = log p(rank r), r = 1..n−1
	base                []float64
	logClamp, clamp     float64 // the value of every rank beyond r0
	tab                 []pLogP // tab[r] = (p, log p) of rank r, tab[0] the clamped value
	worstPrec, worstRec float64 // KL(p_rev‖p) and KL(p‖p_rev), p_rev(r) = p(n−r)
	// log p(rank r) = −(min((r·scale)²·inv, MaxExp) − tmin) − lz for r ≤ r0
	scale, inv, tmin, lz float64
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
	rb.scale, rb.inv, rb.tmin, rb.lz = scale, inv, tmin, lz
	rb.logClamp = -(affinity.MaxExp - tmin) - lz
	rb.clamp = math.Exp(rb.logClamp)
	rb.tab = make([]pLogP, n)
	rb.tab[0] = pLogP{rb.clamp, rb.logClamp}
	for r := range a {
		rb.tab[r+1] = pLogP{rb.base[r], rb.logBase[r]}
	}
	rb.r0 = max(rb.r0, 1)
	rb.r1 = rb.r0
	for r := range a {
		if rb.logBase[r] < rb.logBase[0]-affinity.SkipExp {
			rb.r1 = r
			break
		}
	}
	// Worst case: the point of input rank r has output rank n−r.
	for r := 1; r <= n-1; r++ {
		p, q := rb.base[r-1], rb.base[n-1-r]
		lp, lq := rb.logBase[r-1], rb.logBase[n-1-r]
		rb.worstRec += p * (lp - lq)
		rb.worstPrec += q * (lq - lp)
	}
	return rb
}

// pLogP is a probability and its logarithm.
type pLogP struct{ p, lp float64 }

// RankTerms is the rank-based measures' neighbour distribution for n points and k effective
// neighbours, for a caller that finds the ranks elsewhere (the Beam pipeline, shard by shard).
// Row i's losses are the sums of Term over the points j ≠ i whose input or output rank is at
// most R1, divided by Worst — as Evaluate has them.
type RankTerms struct{ rb *rankBase }

// NewRankTerms builds the distribution (the same σ² for every row: see the package doc).
func NewRankTerms(n, k int) *RankTerms { return &RankTerms{newRankBase(n, k)} }

// R0 is the largest unclamped rank: every rank beyond it has the same probability.
func (t *RankTerms) R0() int { return t.rb.r0 }

// R1 is the largest rank whose point contributes: a point ranked beyond R1 in both spaces adds
// less than e^−SkipExp of the nearest point's weight and is left out.
func (t *RankTerms) R1() int { return t.rb.r1 }

// Term is point j's share of KL(q_i‖p_i) (precision) and KL(p_i‖q_i) (recall), a and b its input
// and output ranks (1 = nearest; beyond R0, or 0, is clamped).
func (t *RankTerms) Term(a, b int) (prec, rec float64) {
	if a > t.rb.r0 {
		a = 0
	}
	if b > t.rb.r0 {
		b = 0
	}
	p, q := t.rb.tab[a], t.rb.tab[b]
	return q.p * (q.lp - p.lp), p.p * (p.lp - q.lp)
}

// Worst is the precision and recall sums of a row whose output ranks reverse its input ranks:
// the normalisation of the rank-based losses.
func (t *RankTerms) Worst() (prec, rec float64) { return t.rb.worstPrec, t.rb.worstRec }
